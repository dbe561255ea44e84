"""langchain-mcp-adapters (which requires mcp 1.x: pinned in requirements-sdk-1.30.0.txt, run by
scripts/test-python-sdks.sh) on our stdio and Streamable HTTP transports: its `load_mcp_tools` takes a
`ClientSession`, so the session is opened on `mcp_msgpack.stdio_client` (frames only, native bytes) or
`mcp_msgpack.streamable_http_client` (the TS media server, native bytes) and handed to it. The image tool,
called through LangChain's tool, reaches LangChain as the base64 image block it builds from the SDK's model
(made at our edge from the bytes that crossed the wire as bin), with the server's bytes intact."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters

from http_peers import media_server, recording_client, write_image
from mcp_msgpack import call_tool_native, stdio_client, streamable_http_client

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


def test_langchain_mcp_adapters_reads_an_image_over_streamable_http_with_native_bytes(tmp_path):
    path, data = write_image(tmp_path)

    async def main(url: str) -> tuple[object, list[dict]]:
        client, recorder = recording_client()
        async with client, streamable_http_client(url, native_bytes=True, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = {tool.name: tool for tool in await adapters.load_mcp_tools(session)}
                content = await tools["read_media_file"].ainvoke({"path": str(path)})
        return content, recorder.exchanges

    with media_server(tmp_path) as url:
        content, exchanges = anyio.run(main, url)
    blocks = [block for block in content if isinstance(block, dict) and block.get("type") == "image"]  # type: ignore[union-attr]
    assert len(blocks) == 1, content
    assert base64.b64decode(blocks[0]["base64"]) == data
    call = next(e for e in exchanges if e["method"] == "POST" and b"read_media_file" in e["request_body"] and b"arguments" in e["request_body"])
    assert bytes(data[:4096]) in call["body"] and len(call["body"]) < len(data) * 1.01  # raw bytes, not base64
