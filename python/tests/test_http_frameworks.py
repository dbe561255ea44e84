"""Python agent frameworks on our HTTP client: FastMCP's `Client` and Pydantic AI's `MCPToolset` (built on it),
against the TS media server with native bytes. No model is called: the toolset lists and calls tools itself."""

from __future__ import annotations

import base64

import anyio
import pytest

from http_peers import media_server, write_image

fastmcp = pytest.importorskip("fastmcp")
pydantic_ai_mcp = pytest.importorskip("pydantic_ai.mcp")

from mcp_msgpack.client.fastmcp_transport import MsgpackStreamableHttpTransport  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frameworks")
    path, data = write_image(folder)
    with media_server(folder) as url:
        yield url, path, data


class Counting(MsgpackStreamableHttpTransport):
    """Keeps the content types the server answered with, to show the wire that was spoken."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.reply_types: list[str] = []

        def factory(headers=None, auth=None, timeout=None, **_):
            import httpx2

            async def keep(response):
                self.reply_types.append(response.headers.get("content-type", ""))

            return httpx2.AsyncClient(headers=headers, auth=auth, timeout=timeout or httpx2.Timeout(30, read=120),
                                      event_hooks={"response": [keep]})

        self.httpx_client_factory = factory


def test_fastmcp_client(media):
    url, path, data = media
    transport = Counting(url, native_bytes=True, max_sse_event_size=None)

    async def run():
        async with fastmcp.Client(transport) as client:
            names = {tool.name for tool in await client.list_tools()}
            result = await client.call_tool("read_media_file", {"path": str(path)})
        return names, result

    names, result = anyio.run(run)
    assert "read_media_file" in names
    assert base64.b64decode(result.content[0].data) == data
    assert any(t.startswith(("application/msgpack", "application/vnd.mcp-msgpack.stream")) for t in transport.reply_types)
    assert not any(t.startswith(("application/json", "text/event-stream")) for t in transport.reply_types)


def test_pydantic_ai_toolset(media):
    url, path, data = media
    transport = Counting(url, native_bytes=True, max_sse_event_size=None)
    toolset = pydantic_ai_mcp.MCPToolset(fastmcp.Client(transport))

    async def run():
        async with toolset:
            tools = await toolset.list_tools()
            result = await toolset.direct_call_tool("read_media_file", {"path": str(path)})
        return tools, result

    tools, result = anyio.run(run)
    assert "read_media_file" in {tool.name for tool in tools}
    # Pydantic AI turns an image result into its BinaryContent (or a list holding it): the bytes themselves.
    images = result if isinstance(result, list) else [result]
    assert any(getattr(item, "data", None) == data for item in images), type(result)
    assert any(t.startswith(("application/msgpack", "application/vnd.mcp-msgpack.stream")) for t in transport.reply_types)
