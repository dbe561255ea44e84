"""A FastMCP 4 server (fastmcp from PyPI, pinned in requirements-test.txt) with an image tool returning
FastMCP's `Image`, served by `mcp_msgpack.fastmcp.http_app(mcp)` on uvicorn: our TS client reads the image as
native bytes on msgpack-v1 (the reply about the image's size, not base64's 1.33x); the TS SDK's JSON client,
FastMCP's own `Client` on its stock transport and on ours all work against the same app; FastMCP's custom
routes are still served."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from http_peers import ROOT, free_port, running, write_image

fastmcp = pytest.importorskip("fastmcp")

import mcp_msgpack.fastmcp as mcp_msgpack_fastmcp  # noqa: E402
from mcp_msgpack.fastmcp import MsgpackStreamableHttpTransport  # noqa: E402

pytestmark = [pytest.mark.timeout(180)]


class Served:
    def __init__(self, url: str, data: bytes, log: Path) -> None:
        self.url, self.data, self.log = url, data, log

    def responses_since(self, mark: int) -> list[tuple[str, int]]:
        """(content type, body size) of each response the server finished after `mark` lines of its log."""
        lines = self.log.read_text().splitlines()[mark:] if self.log.exists() else []
        return [(kind, int(size)) for kind, size in (line.rsplit(" ", 1) for line in lines)]

    def mark(self) -> int:
        return len(self.log.read_text().splitlines()) if self.log.exists() else 0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("fastmcp-http")
    path, data = write_image(folder)
    log = folder / "responses.log"
    port = free_port()
    script = Path(__file__).parent / "servers" / "fastmcp_http_app.py"
    with running([sys.executable, str(script), str(port), str(path), str(log)], port) as url:
        yield Served(url, data, log)


def _ts(url: str, mode: str) -> dict:
    if shutil.which("node") is None:
        pytest.skip("needs Node")
    if not (ROOT / "packages" / "transport-msgpack" / "dist").exists():
        pytest.fail("build the TS packages first (npm run build)")
    script = Path(__file__).parent / "ts" / "http_client.mjs"
    out = subprocess.run(["node", str(script), url, mode], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _largest(responses: list[tuple[str, int]]) -> tuple[str, int]:
    return max(responses, key=lambda response: response[1])


def test_our_ts_client_reads_the_fastmcp_image_as_native_bytes(served: Served) -> None:
    mark = served.mark()
    report = _ts(served.url, "msgpack")
    assert {"echo", "read_image"} <= set(report["tools"]) and report["echoed"] == "héllo"
    assert report["wire"] == "msgpack" and report["native"]
    assert report["length"] == len(served.data)
    assert report["sha256"] == hashlib.sha256(served.data).hexdigest()
    kind, size = _largest(served.responses_since(mark))
    # The image went as bin in one MessagePack body: its size plus a few dozen bytes, not base64's 1.33x.
    assert kind == "application/msgpack"
    assert len(served.data) <= size < len(served.data) * 1.01, size / len(served.data)


def test_the_ts_sdk_json_client_still_works(served: Served) -> None:
    mark = served.mark()
    report = _ts(served.url, "sdk")
    assert {"echo", "read_image"} <= set(report["tools"]) and not report["native"]
    assert report["sha256"] == hashlib.sha256(served.data).hexdigest()
    assert all(t is None or t.startswith(("application/json", "text/event-stream")) for t in report["contentTypes"])
    kind, size = _largest(served.responses_since(mark))
    assert kind.startswith(("application/json", "text/event-stream")) and size > len(served.data) * 1.33


def _fastmcp_call(transport: object) -> tuple[set[str], bytes]:
    async def run() -> tuple[set[str], bytes]:
        async with fastmcp.Client(transport) as client:
            names = {tool.name for tool in await client.list_tools()}
            result = await client.call_tool("read_image", {})
        return names, base64.b64decode(result.content[0].data)

    return anyio.run(run)


def test_fastmcp_client_on_its_stock_transport_gets_json(served: Served) -> None:
    from fastmcp.client.transports import StreamableHttpTransport

    mark = served.mark()
    names, image = _fastmcp_call(StreamableHttpTransport(served.url))
    assert "read_image" in names and image == served.data
    assert not any(kind.startswith("application/msgpack") for kind, _ in served.responses_since(mark))


def test_fastmcp_client_on_our_transport_gets_bin(served: Served) -> None:
    mark = served.mark()
    names, image = _fastmcp_call(MsgpackStreamableHttpTransport(served.url, native_bytes=True))
    assert "read_image" in names and image == served.data
    kind, size = _largest(served.responses_since(mark))
    assert kind == "application/msgpack" and size < len(served.data) * 1.01


def test_fastmcp_custom_routes_are_still_served(served: Served) -> None:
    response = httpx2.get(served.url.removesuffix("/mcp") + "/health")
    assert response.status_code == 200 and response.text == "ok"


def test_fastmcps_options_reach_our_session_manager() -> None:
    """FastMCP resolves its options (and its settings' defaults) and builds its manager on startup; the app of
    ours runs this package's manager with those options, FastMCP's event-store scoping and ours on top."""
    from fastmcp.server.session_scoped_event_store import SessionScopedEventStore

    from mcp_msgpack.server.fastmcp_app import _endpoint_of
    from mcp_msgpack.server.streamable_http_manager import MsgpackStreamableHTTPSessionManager

    class NoEvents:
        async def store_event(self, stream_id: str, message: object) -> str:
            return "1"

        async def replay_events_after(self, last_event_id: str, send_callback: object) -> None:
            return None

    server = fastmcp.FastMCP("options")
    store = NoEvents()
    app = mcp_msgpack_fastmcp.http_app(server, "/rpc", json_response=True, event_store=store, encoding="smallest", native_bytes=False)

    async def run() -> MsgpackStreamableHTTPSessionManager:
        async with app.router.lifespan_context(app):
            manager = _endpoint_of(app).session_manager
            assert isinstance(manager, MsgpackStreamableHTTPSessionManager) and manager._task_group is not None
            return manager

    manager = anyio.run(run)
    assert manager.json_response and not manager.stateless
    assert manager.encoding == "smallest" and manager.native_bytes is False
    assert isinstance(manager.event_store, SessionScopedEventStore)  # a fresh namespace per transport, as FastMCP's
    assert manager.event_store is not manager.event_store
    with pytest.raises(ValueError, match="Streamable HTTP only"):
        mcp_msgpack_fastmcp.http_app(server, transport="sse")
