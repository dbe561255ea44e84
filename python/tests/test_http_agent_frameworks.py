"""Agent frameworks' own MCP integrations on msgpack-v1 with native bytes, against the TS media server over
Streamable HTTP: each lists the tools and calls `read_media_file` on a 5 MiB image through the framework's
own client objects (no model is called), with the smallest code a user needs where the framework takes no
transport (the README's "Agent frameworks" gives the same code). The frameworks are pinned in
python/requirements-frameworks.txt and installed by scripts/test-python-frameworks.sh in a venv of their own;
elsewhere these tests skip. FastMCP's `Client` and Pydantic AI's `MCPToolset` take a transport: they are
tests/test_http_frameworks.py, run in the same step."""

from __future__ import annotations

import base64
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from http_peers import RecordingTransport, media_server, write_image
from mcp_msgpack import call_tool_native, streamable_http_client

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, bytes]]:
    folder = tmp_path_factory.mktemp("agent-frameworks")
    path, data = write_image(folder)
    with media_server(folder) as url:
        yield url, path, data


def _recording_factory(recorder: RecordingTransport) -> Any:
    """An httpx2 client factory (the SDK's signature) whose client keeps what crossed the wire."""

    def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=recorder, headers=headers, auth=auth, timeout=timeout or httpx2.Timeout(30, read=120))

    return factory


def _assert_image_went_as_bin(recorder: RecordingTransport, data: bytes) -> None:
    largest = max(recorder.exchanges, key=lambda exchange: len(exchange["body"]))
    assert largest["type"] == "application/msgpack", largest["type"]
    # The 5 MiB image as bin in one MessagePack body: its size and a few dozen bytes, not base64's 1.33x.
    assert len(data) <= len(largest["body"]) < len(data) * 1.01
    assert bytes(data) in bytes(largest["body"])
    assert not any((exchange["type"] or "").startswith(("application/json", "text/event-stream")) and len(exchange["body"]) > 4096 for exchange in recorder.exchanges)


def test_openai_agents_mcp_server_streamable_http(media: tuple[str, Path, bytes]) -> None:
    mcp_module = pytest.importorskip("agents.mcp")
    url, path, data = media
    recorder = RecordingTransport()

    # The README's subclass: openai-agents takes no transport, its servers open theirs in `create_streams()`.
    class MsgpackMCPServerStreamableHttp(mcp_module.MCPServerStreamableHttp):  # type: ignore[misc]
        def create_streams(self) -> Any:
            return streamable_http_client(
                self.params["url"], headers=self.params.get("headers"), native_bytes=True,
                http_client=_recording_factory(recorder)(self.params.get("headers")),
            )

    async def run() -> tuple[set[str], bytes, bytes]:
        async with MsgpackMCPServerStreamableHttp({"url": url}, client_session_timeout_seconds=60) as server:
            names = {tool.name for tool in await server.list_tools()}
            result = await server.call_tool("read_media_file", {"path": str(path)})
            native = await call_tool_native(server.session, "read_media_file", {"path": str(path)})
        return names, base64.b64decode(result.content[0].data), native.media[0].data

    names, image, native_image = anyio.run(run)
    assert "read_media_file" in names
    assert image == data and native_image == data
    _assert_image_went_as_bin(recorder, data)


def test_google_adk_mcp_toolset(media: tuple[str, Path, bytes]) -> None:
    adk_mcp = pytest.importorskip("google.adk.tools.mcp_tool")
    from google.adk.agents import LlmAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.tool_context import ToolContext

    url, path, data = media
    recorder = RecordingTransport()
    session_manager = adk_mcp.mcp_session_manager
    sdk_function = session_manager.streamable_http_client
    # The README's line: ADK's toolset opens the SDK's `streamable_http_client` through its module's global.
    session_manager.streamable_http_client = functools.partial(streamable_http_client, native_bytes=True)

    async def run() -> tuple[set[str], Any]:
        toolset = adk_mcp.McpToolset(
            connection_params=adk_mcp.StreamableHTTPConnectionParams(url=url, timeout=30, httpx_client_factory=_recording_factory(recorder)),
        )
        try:
            tools = await toolset.get_tools()
            tool = next(tool for tool in tools if tool.name == "read_media_file")
            sessions = InMemorySessionService()
            session = await sessions.create_session(app_name="test", user_id="user")
            context = InvocationContext(session_service=sessions, invocation_id="call", agent=LlmAgent(name="agent"), session=session)
            result = await tool.run_async(args={"path": str(path)}, tool_context=ToolContext(context))
        finally:
            await toolset.close()
        return {tool.name for tool in tools}, result

    try:
        names, result = anyio.run(run)
    finally:
        session_manager.streamable_http_client = sdk_function
    assert "read_media_file" in names
    # ADK hands the model the tool result as a dict: the image block's base64, made on receipt from the bin.
    image = result["content"][0]
    assert image["type"] == "image" and base64.b64decode(image["data"]) == data
    _assert_image_went_as_bin(recorder, data)
