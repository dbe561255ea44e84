"""The HTTP bench's Python MCPServer (same tools) on stdio, for measure_stdio.py.

    python bench/stdio_tool_server.py IMAGE_PATH PID_FILE [--sdk]

`--sdk`: the SDK's own `mcp.server.stdio.stdio_server` (JSON lines); otherwise `mcp_msgpack.stdio_server` with
its defaults. Writes its pid to PID_FILE, so the bench reads this process's CPU whatever client spawned it.
Its `read_image_native` (http_media_app's): the image as `native_image` (the bytes in hand, base64 made once with pybase64); the
SDK's variant calls `read_image` (the stdlib's base64), as an SDK tool would.
"""

import os
import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "servers"))

import http_media_app  # noqa: E402  (its tools include read_image_native)

server = http_media_app.server


async def main() -> None:
    http_media_app.image_path = sys.argv[1]
    Path(sys.argv[2]).write_text(str(os.getpid()))
    if "--sdk" in sys.argv:
        from mcp.server.stdio import stdio_server
    else:
        from mcp_msgpack import stdio_server
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
