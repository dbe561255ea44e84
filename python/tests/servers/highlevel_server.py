"""A server on the SDK's high-level API, served the way its authors serve it: `server.run()` on stdio, which
calls `mcp.server.stdio.stdio_server()`. `MCPServer` on SDK 2.x, `mcp.server.fastmcp.FastMCP` on 1.x: the
target of `mcp-msgpack-run` in tests/test_run.py.

    python highlevel_server.py [--own-loop]   (--own-loop: serves JSON lines itself, never calling stdio_server)
"""

from __future__ import annotations

import sys

import mcp.types as types

try:
    from mcp.server.mcpserver import MCPServer
except ImportError:
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[assignment,no-redef]

server = MCPServer("highlevel")


def pattern(size: int) -> bytes:
    return bytes((i * 13 + 5) % 256 for i in range(size))


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


@server.tool()
def picture(size: int) -> types.ImageContent:
    """An image of `size` bytes, handed over as bytes (native_image)."""
    from mcp_msgpack import native_image

    return native_image(pattern(size), "image/png")


if __name__ == "__main__":
    if "--own-loop" in sys.argv:
        sys.stdin.read()  # a server with its own stdio loop: here, one that reads until EOF and answers nothing
    else:
        server.run()
