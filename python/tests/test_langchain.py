"""langchain-mcp-adapters (which requires mcp 1.x: pinned in requirements-sdk-1.30.0.txt, run by
scripts/test-python-sdks.sh) on our stdio transport: its `load_mcp_tools` takes a `ClientSession`, so the
session is opened on `mcp_msgpack.stdio_client` (frames only, native bytes) and handed to it. The image tool,
called through LangChain's tool, reaches LangChain as the base64 image block it builds from the SDK's model
(made at our edge from the bytes that crossed the wire as bin), with the server's bytes intact."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters

from mcp_msgpack import call_tool_native, stdio_client

adapters = pytest.importorskip("langchain_mcp_adapters.tools", reason="langchain-mcp-adapters needs mcp 1.x (requirements-sdk-1.30.0.txt)")

HERE = Path(__file__).resolve().parent
RUN = Path(sys.executable).parent / "mcp-msgpack-run"


def test_langchain_mcp_adapters_loads_tools_and_reads_an_image_over_msgpack_with_native_bytes():
    sys.path.insert(0, str(HERE / "servers"))
    from highlevel_server import pattern

    async def main() -> tuple[list[str], object, bytes]:
        params = StdioServerParameters(command=str(RUN), args=["--", str(HERE / "servers" / "highlevel_server.py")])
        async with stdio_client(params, wire="msgpack", native_bytes=True) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name: tool for tool in await adapters.load_mcp_tools(session)}
                content = await tools["picture"].ainvoke({"size": 40_000})
                direct = (await call_tool_native(session, "picture", {"size": 40_000})).media[0].data
                return sorted(tools), content, direct

    names, content, direct = anyio.run(main)
    assert names == ["echo", "picture"]
    blocks = [block for block in content if isinstance(block, dict) and block.get("type") == "image"]  # type: ignore[union-attr]
    assert len(blocks) == 1, content
    assert base64.b64decode(blocks[0]["base64"]) == pattern(40_000)
    assert direct == pattern(40_000)
