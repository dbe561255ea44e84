"""mcp-use (pinned in requirements-sdk-1.30.0.txt: its releases import only on mcp 1.x, run by
scripts/test-python-sdks.sh on that line) on our stdio and Streamable HTTP transports: its `MCPClient` opens
servers from a config through its task managers' modules' `stdio_client` and `streamable_http_client`, so the
README's one line each points those at `mcp_msgpack.stdio_client` (frames only here, native bytes) and
`mcp_msgpack.streamable_http_client` (on mcp 1.x, client/streamable_http_httpx.py: it yields the three streams
mcp-use's manager unpacks). Over stdio the server is a high-level server under `mcp-msgpack-run`, over HTTP the
TS media server; the image tool, called through mcp-use's session, comes back intact, having crossed the wire
as bin."""

from __future__ import annotations

import base64
import functools
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from http_peers import RecordingTransport, media_server, write_image
from mcp_msgpack import call_tool_native, stdio_client, streamable_http_client

stdio_manager = pytest.importorskip("mcp_use.client.task_managers.stdio", reason="mcp-use imports on mcp 1.x only (requirements-sdk-1.30.0.txt)")
from mcp_use import MCPClient  # noqa: E402
from mcp_use.client.connectors.http import HttpConnector  # noqa: E402
from mcp_use.client.task_managers import streamable_http as http_manager  # noqa: E402

HERE = Path(__file__).resolve().parent
RUN = Path(sys.executable).parent / "mcp-msgpack-run"


def test_mcp_use_lists_tools_and_reads_an_image_over_msgpack_with_native_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(HERE / "servers"))
    from highlevel_server import pattern

    # The README's line (a monkeypatch here, to leave the module as it was for other tests).
    monkeypatch.setattr(stdio_manager, "stdio_client", functools.partial(stdio_client, wire="msgpack", native_bytes=True))
    config = {"mcpServers": {"media": {"command": str(RUN), "args": ["--", str(HERE / "servers" / "highlevel_server.py")]}}}

    async def main() -> tuple[list[str], bytes, bytes, dict[str, object]]:
        client = MCPClient(config)
        try:
            session = await client.create_session("media")
            capabilities = session.connector.client_session.get_server_capabilities()
            names = sorted(tool.name for tool in await session.list_tools())
            result = await session.call_tool("picture", {"size": 40_000})
            native = await call_tool_native(session.connector.client_session, "picture", {"size": 40_000})
        finally:
            await client.close_all_sessions()
        return names, base64.b64decode(result.content[0].data), native.media[0].data, capabilities.experimental or {}

    names, image, direct, experimental = anyio.run(main)
    assert names == ["echo", "picture"]
    assert "mcp-msgpack/native-bytes" in experimental  # confirmed: media then cross as bin (SPEC 8)
    assert image == pattern(40_000) and direct == pattern(40_000)


def test_mcp_use_reads_an_image_from_the_ts_media_server_over_streamable_http_as_bin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path, data = write_image(tmp_path)
    # The README's line (a monkeypatch here, to leave the module as it was for other tests).
    monkeypatch.setattr(http_manager, "streamable_http_client", functools.partial(streamable_http_client, native_bytes=True))
    # Only to see the wire: mcp-use builds its httpx client in the connector; this one keeps what crossed it.
    recorder = RecordingTransport()
    monkeypatch.setattr(HttpConnector, "_build_httpx_factory", lambda self: lambda **options: _recording(recorder, **options))

    async def main(url: str) -> tuple[str | None, list[str], bytes, bytes]:
        client = MCPClient({"mcpServers": {"media": {"url": url}}})
        try:
            session = await client.create_session("media")
            names = sorted(tool.name for tool in await session.list_tools())
            result = await session.call_tool("read_media_file", {"path": str(path)})
            native = await call_tool_native(session.connector.client_session, "read_media_file", {"path": str(path)})
            transport = session.connector.transport_type
        finally:
            await client.close_all_sessions()
        return transport, names, base64.b64decode(result.content[0].data), native.media[0].data

    with media_server(tmp_path) as url:
        transport, names, image, direct = anyio.run(main, url)
    assert transport == "streamable HTTP"  # not mcp-use's SSE fallback
    assert "read_media_file" in names
    assert image == data and direct == data
    calls = [e for e in recorder.exchanges if e["method"] == "POST" and b"read_media_file" in e["request_body"] and b"arguments" in e["request_body"]]
    assert len(calls) == 2 and all(e["type"] == "application/msgpack" for e in calls), [(e["type"], len(e["body"])) for e in calls]
    assert all(bytes(data[:4096]) in e["body"] and len(e["body"]) < len(data) * 1.01 for e in calls)  # raw bytes, not base64


def _recording(recorder: RecordingTransport, **options: Any) -> Any:
    """mcp-use's factory's client (its headers, timeout, auth) on a transport that records the wire."""
    import httpx

    return httpx.AsyncClient(**options, transport=recorder, follow_redirects=True)
