"""A Python MCPServer on mcp_msgpack's stdio_server, with a media tool: the peer of the interop tests.

    python media_server.py [--wire auto|json|msgpack] [--sdk] [--spy-base64]   (--sdk: the SDK's own JSON
    stdio_server; --spy-base64: a `base64_calls` tool counting the process's base64, tests/servers/base64_spy.py)
"""

from __future__ import annotations

import argparse
import base64
import sys
from pathlib import Path
import hashlib

import anyio
import mcp.types as types

try:  # the SDK's high-level server: MCPServer on 2.x, FastMCP (mcp.server.fastmcp) on 1.x
    from mcp.server.mcpserver import Context, MCPServer
except ImportError:
    from mcp.server.fastmcp import Context  # type: ignore[no-redef]
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore[assignment,no-redef]

server = MCPServer("py-media")


def pattern(size: int) -> bytes:
    """Deterministic bytes a client can check: a PNG signature, then a counter pattern."""
    head = b"\x89PNG\r\n\x1a\n"
    body = bytes((i * 7 + 3) % 256 for i in range(256)) * (size // 256 + 1)
    return (head + body)[:size]


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


@server.tool()
def image(size: int) -> types.ImageContent:
    """A PNG-like image of `size` bytes."""
    return types.ImageContent.model_validate({"type": "image", "mimeType": "image/png", "data": base64.b64encode(pattern(size)).decode("ascii")})


@server.tool()
def image_bytes(size: int) -> types.ImageContent:
    """The same image, handed over as bytes (mcp_msgpack.native_image): no base64 unless the client reads JSON."""
    from mcp_msgpack import native_image

    return native_image(pattern(size), "image/png")


@server.tool()
def digest(data: str) -> str:
    """The sha256 of base64 data (to check media a client sends)."""
    return hashlib.sha256(base64.b64decode(data)).hexdigest()


@server.tool()
def records(count: int) -> dict:
    """An object result of `count` records."""
    return {"entries": [{"name": f"file-{i}.txt", "size": i * 37, "dir": i % 5 == 0} for i in range(count)]}


sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or imported by a test
from sampling_tool import add_input_image_digest, add_sampled_image_digest  # noqa: E402

add_sampled_image_digest(server, Context, types)
add_input_image_digest(server, Context, types)

TOOL_NAMES = sorted(["digest", "echo", "image", "image_bytes", "records", "sampled_image_digest"] + (["input_image_digest"] if hasattr(types, "InputRequiredResult") else []))
"""The tools this server lists (the 2026-07-28 `input_image_digest` on SDKs that have `input_required`)."""


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wire", default="auto")
    parser.add_argument("--sdk", action="store_true")
    parser.add_argument("--spy-base64", action="store_true")  # the base64_calls tool (base64_spy.py)
    args = parser.parse_args()
    if args.spy_base64:
        import base64_spy

        base64_spy.register(server)
    if args.sdk:
        from mcp.server.stdio import stdio_server as transport
        context = transport()
    else:
        from mcp_msgpack import stdio_server

        context = stdio_server(wire=args.wire)
    lowlevel = getattr(server, "_lowlevel_server", None) or server._mcp_server  # 2.x MCPServer; 1.x FastMCP
    async with context as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
