"""A FastMCP (the `fastmcp` package, 4.x) server served by its own `mcp.run()` on stdio: a target of
`mcp-msgpack-run` in tests/test_run.py (FastMCP serves stdio through the SDK's `stdio_server()`)."""

from __future__ import annotations

from fastmcp import FastMCP

mcp = FastMCP("fastmcp-target")


@mcp.tool
def echo(text: str) -> str:
    """Returns its text."""
    return text


if __name__ == "__main__":
    mcp.run(show_banner=False)
