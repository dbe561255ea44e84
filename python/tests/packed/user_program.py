"""A user's program against the installed wheel (scripts/test-python-packed.sh): type-checked with
`mypy --strict`, then run. It spawns a server on the SDK's high-level API through `mcp-msgpack-run` and reads an
image as `bytes` through `call_tool_native`, as the README shows."""

from __future__ import annotations

import sys

import anyio
from mcp import ClientSession, StdioServerParameters

import mcp_msgpack
from mcp_msgpack import NativeCallToolResult, call_tool_native, stdio_client


async def main(run: str, server: str) -> None:
    params = StdioServerParameters(command=run, args=["--", server])
    async with stdio_client(params, wire="msgpack", native_bytes=True) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result: NativeCallToolResult = await call_tool_native(session, "picture", {"size": 1000})
            png: bytes = result.media[0].data
            assert png == bytes((i * 13 + 5) % 256 for i in range(1000)), "image bytes differ"
            version: str = mcp_msgpack.__version__
            print(f"user program: mcp-msgpack {version}, {len(png)} image bytes intact")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
