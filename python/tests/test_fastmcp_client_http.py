"""FastMCP's `Client` on `MsgpackStreamableHttpTransport` against the TS media server, on every line that has
`fastmcp` (2.14.7 on mcp 1.30.0, where the transport runs on client/streamable_http_httpx.py; 4.1.6 on mcp 2.3.0,
on client/streamable_http.py): tools listed by FastMCP, the image read through FastMCP's `call_tool` and as
bytes on the session it opened, intact, having crossed the wire as bin. The wire is kept by an
`httpx_client_factory`, FastMCP's own option for the HTTP client, which the transport must honour."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest

from http_peers import RecordingTransport, httpx2, media_server, write_image
from mcp_msgpack import call_tool_native

fastmcp = pytest.importorskip("fastmcp", reason="fastmcp is pinned for mcp 2.3.0 (4.1.6) and 1.30.0 (2.14.7) only")
from mcp_msgpack.client.fastmcp_transport import SESSION_OPTIONS, MsgpackStreamableHttpTransport  # noqa: E402

pytestmark = pytest.mark.timeout(120)


def test_fastmcps_client_on_our_http_transport_reads_an_image_from_the_ts_media_server_as_bin(tmp_path: Path) -> None:
    path, data = write_image(tmp_path)
    recorder = RecordingTransport()

    def recording_factory(**options: Any) -> Any:  # FastMCP 2 passes follow_redirects, 4 does not
        return httpx2.AsyncClient(**{"follow_redirects": True, **options}, transport=recorder)

    async def main(url: str) -> tuple[list[str], bytes, bytes, str | None]:
        transport = MsgpackStreamableHttpTransport(url, native_bytes=True, httpx_client_factory=recording_factory)
        async with fastmcp.Client(transport) as client:
            names = sorted(tool.name for tool in await client.list_tools())
            result = await client.call_tool("read_media_file", {"path": str(path)})
            native = await call_tool_native(client.session, "read_media_file", {"path": str(path)})
            session_id = transport.get_session_id()
        return names, base64.b64decode(result.content[0].data), native.media[0].data, session_id

    with media_server(tmp_path) as url:
        names, image, direct, session_id = anyio.run(main, url)
    assert "read_media_file" in names
    assert image == data and direct == data
    if not SESSION_OPTIONS:
        # FastMCP 2's accessor reads our client's third stream. (FastMCP 4.1.6's reads a response hook, which
        # reports None against this server with FastMCP's own stock transport as well.)
        assert session_id
    calls = [e for e in recorder.exchanges if e["method"] == "POST" and b"read_media_file" in e["request_body"] and b"arguments" in e["request_body"]]
    assert len(calls) == 2 and all(e["type"] == "application/msgpack" for e in calls), [(e["type"], len(e["body"])) for e in calls]
    assert all(bytes(data[:4096]) in e["body"] and len(e["body"]) < len(data) * 1.01 for e in calls)  # raw bytes, not base64
