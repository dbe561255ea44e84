"""`streamable_http_app(server)` on mcp 1.x (the session-loop line, shared/sdk_compat.py): a
`mcp.server.fastmcp.FastMCP` server and a low-level `Server` answer msgpack-v1 clients in MessagePack, with an
image as native bytes (bin) to a client that offers the extension, and JSON clients (the SDK's own) exactly as
the SDK's own app does; progress opens the frame stream; stateless, one-body, event-store (with resumption on
frames) and compression modes; DELETE and unknown sessions; the idle timeout; the transport's refusals, and
what 1.x cannot carry refused clearly. Checked on the bytes that crossed the wire. Runs on the 1.x lines
(scripts/test-python-sdks.sh); on mcp 2.3+ the same app is test_http_*.py's."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession

from http_peers import ROOT, free_port, recording_client, running, write_image
from mcp_msgpack import call_tool_native, streamable_http_client
from mcp_msgpack.shared.sdk_compat import SESSION_LOOP_SERVER

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not SESSION_LOOP_SERVER, reason="the mcp 1.x line (on 2.3+ the app is test_http_*.py's)"),
]

APP = Path(__file__).parent / "servers" / "session_loop_http_app.py"
MSGPACK_TYPES = ("application/msgpack", "application/vnd.mcp-msgpack.stream")


@contextlib.contextmanager
def session_loop_server(image: Path, *flags: str) -> Iterator[str]:
    port = free_port()
    with running([sys.executable, str(APP), str(port), str(image), *flags], port) as url:
        yield url


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("image"))


@pytest.fixture(scope="module")
def fastmcp_url(image):
    with session_loop_server(image[0]) as url:
        yield url


@pytest.fixture(scope="module")
def lowlevel_url(image):
    with session_loop_server(image[0], "--lowlevel") as url:
        yield url


async def _msgpack_session(url: str) -> dict[str, Any]:
    client, recorder = recording_client()
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with client, streamable_http_client(url, native_bytes=True, http_client=client) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            echoed = (await session.call_tool("echo", {"text": "héllo"})).content[0].text  # type: ignore[union-attr]
            native = (await call_tool_native(session, "read_image", {})).content[0].data  # type: ignore[union-attr]
            held = (await call_tool_native(session, "read_image_native", {})).content[0].data  # type: ignore[union-attr]
            plain = (await session.call_tool("read_image", {})).content[0].data  # type: ignore[union-attr]
            counted = (await session.call_tool("counted", {}, progress_callback=on_progress)).content[0].text  # type: ignore[union-attr]
    return {
        "names": names, "echoed": echoed, "native": native, "held": held, "plain": plain, "counted": counted,
        "progress": progress, "exchanges": recorder.exchanges,
    }


def _calls(exchanges: list[dict[str, Any]], tool: bytes) -> list[dict[str, Any]]:
    return [e for e in exchanges if e["method"] == "POST" and tool in e["request_body"]]


def _check_msgpack_session(report: dict[str, Any], data: bytes, *, related_progress: bool) -> None:
    """`related_progress`: the server ties its progress to the request (the low-level server here does; 1.x
    FastMCP's `report_progress` does from some release after 1.24, which sent it unrelated, on the GET stream,
    where it may arrive after the answer)."""
    assert {"echo", "read_image", "read_image_native", "counted"} <= report["names"]
    assert report["echoed"] == "héllo" and report["counted"] == "counted"
    assert isinstance(report["native"], bytes) and report["native"] == data
    assert isinstance(report["held"], bytes) and report["held"] == data
    assert base64.b64decode(report["plain"]) == data  # a plain call_tool still gets the SDK's base64
    exchanges = report["exchanges"]
    initialize = exchanges[0]
    assert initialize["request_type"] == "application/msgpack" and initialize["type"] == "application/msgpack"
    assert b"io.github.mcp-msgpack/native-bytes" in initialize["body"]  # confirmed (SPEC 8.1)
    for exchange in exchanges:
        if exchange["method"] == "POST":
            assert exchange["request_type"] == "application/msgpack"
    images = _calls(exchanges, b"read_image")
    assert len(images) == 3
    for call in images:
        assert call["type"] == "application/msgpack"
        # The image crossed as bin: its raw bytes are in the body, its base64 is not (no base64 on the wire).
        assert data[1000:2000] in call["body"]
        assert base64.b64encode(data[:3000])[:3000] not in call["body"]
    if related_progress:
        assert report["progress"] == [1, 2, 3]
        (counted,) = _calls(exchanges, b"counted")
        assert counted["type"] == "application/vnd.mcp-msgpack.stream"  # progress opened the frame stream (9.3)


async def _json_session(url: str) -> dict[str, Any]:
    from mcp.client.streamable_http import streamable_http_client as sdk_client  # the SDK's own

    client, recorder = recording_client()
    async with client, sdk_client(url, http_client=client) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            image = (await session.call_tool("read_image", {})).content[0].data  # type: ignore[union-attr]
            held = (await session.call_tool("read_image_native", {})).content[0].data  # type: ignore[union-attr]
    return {"names": names, "image": image, "held": held, "exchanges": recorder.exchanges}


def _check_json_session(report: dict[str, Any], data: bytes) -> None:
    assert {"echo", "read_image", "read_image_native"} <= report["names"]
    assert base64.b64decode(report["image"]) == data and base64.b64decode(report["held"]) == data
    for exchange in report["exchanges"]:
        assert "msgpack" not in (exchange["type"] or "") and exchange["wire"] is None
        assert exchange["type"] is None or exchange["type"].startswith(("application/json", "text/event-stream"))


def test_a_fastmcp_server_answers_our_client_in_msgpack_with_native_bytes(fastmcp_url, image):
    _check_msgpack_session(anyio.run(_msgpack_session, fastmcp_url), image[1], related_progress=False)


def test_a_fastmcp_server_answers_the_sdks_json_client_in_json(fastmcp_url, image):
    _check_json_session(anyio.run(_json_session, fastmcp_url), image[1])


def test_a_lowlevel_server_answers_our_client_in_msgpack_with_native_bytes(lowlevel_url, image):
    _check_msgpack_session(anyio.run(_msgpack_session, lowlevel_url), image[1], related_progress=True)


def test_a_lowlevel_server_answers_the_sdks_json_client_in_json(lowlevel_url, image):
    _check_json_session(anyio.run(_json_session, lowlevel_url), image[1])


def _fastmcp_major() -> int | None:
    try:
        from importlib.metadata import version

        return int(version("fastmcp").split(".")[0])
    except Exception:  # not installed on this line
        return None


@pytest.mark.skipif(_fastmcp_major() != 2, reason="needs the standalone fastmcp 2.x (the 1.30.0 line has 2.14.7)")
def test_a_fastmcp_2_server_answers_our_client_in_msgpack_and_json_clients_in_json(image):
    """A server written for the `fastmcp` package's 2.x line (on mcp 1.x) goes on the app unchanged:
    `streamable_http_app(mcp)`, as a `mcp.server.fastmcp` server does."""
    with session_loop_server(image[0], "--fastmcp2") as url:
        _check_msgpack_session(anyio.run(_msgpack_session, url), image[1], related_progress=False)
        _check_json_session(anyio.run(_json_session, url), image[1])


def _ts_client(url: str, mode: str) -> dict[str, Any]:
    script = Path(__file__).parent / "ts" / "http_client.mjs"
    out = subprocess.run(["node", str(script), url, mode], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")
def test_our_ts_client_reads_a_fastmcp_servers_image_as_native_bytes(fastmcp_url, image):
    if not (ROOT / "packages" / "transport-msgpack" / "dist").exists():
        pytest.fail("build the TS packages first (npm run build)")
    data = image[1]
    report = _ts_client(fastmcp_url, "msgpack")
    assert {"echo", "read_image"} <= set(report["tools"]) and report["echoed"] == "héllo"
    assert report["wire"] == "msgpack" and report["native"]
    assert "application/msgpack" in report["contentTypes"]
    assert report["length"] == len(data) and report["sha256"] == hashlib.sha256(data).hexdigest()
    json_report = _ts_client(fastmcp_url, "sdk")  # the TS SDK's own JSON client, JSON only
    assert not json_report["native"] and json_report["sha256"] == hashlib.sha256(data).hexdigest()
    assert all(t is None or t.startswith(("application/json", "text/event-stream")) for t in json_report["contentTypes"])


@pytest.mark.parametrize("flag", ["--stateless", "--json-response", "--event-store", "--compression"])
def test_every_mode_answers_in_msgpack(image, flag):
    """Stateless, one body per reply, an event store (each reply a frame stream with its priming id, SPEC 9.3)
    and content codings (SPEC 10: httpx asks for gzip; the records reply comes coded)."""
    path, data = image

    async def call(url: str) -> tuple[bytes, str, list[dict[str, Any]]]:
        client, recorder = recording_client()
        async with client, streamable_http_client(url, native_bytes=True, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                native = (await call_tool_native(session, "read_image", {})).content[0].data  # type: ignore[union-attr]
                echoed = (await session.call_tool("echo", {"text": "a"})).content[0].text  # type: ignore[union-attr]
        return native, echoed, recorder.exchanges

    with session_loop_server(path, flag) as url:
        native, echoed, exchanges = anyio.run(call, url)
    assert echoed == "a" and native == data
    (read,) = _calls(exchanges, b"read_image")
    assert read["request_type"] == "application/msgpack" and read["type"] in MSGPACK_TYPES
    if flag == "--stateless":
        assert all(e["request_session"] is None for e in exchanges)
    if flag == "--event-store":
        assert read["type"] == "application/vnd.mcp-msgpack.stream" and b"\xa5prime" in read["body"][:64]
    if flag == "--compression":
        assert any(e["coding"] for e in exchanges if e["method"] == "POST")


def test_a_deleted_or_unknown_session_is_refused(fastmcp_url):
    from http_peers import httpx2

    async def run() -> list[int]:
        async with httpx2.AsyncClient(timeout=30) as client:
            unknown = await client.post(
                fastmcp_url, content=b"\x80", headers={"content-type": "application/msgpack",
                "accept": "application/msgpack, application/json, text/event-stream", "mcp-session-id": "nope"},
            )
            async with streamable_http_client(fastmcp_url, native_bytes=True, http_client=client) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    session_id = streams[2]()
            # Closing the client sent DELETE; the session is gone.
            after = await client.post(
                fastmcp_url, content=b"\x80", headers={"content-type": "application/msgpack",
                "accept": "application/msgpack, application/json, text/event-stream", "mcp-session-id": session_id},
            )
            return [unknown.status_code, after.status_code]

    assert anyio.run(run) == [404, 404]


def test_the_transports_refusals_hold_on_the_session_loop_line(fastmcp_url):
    """SPEC 9.2/9.4 on raw msgpack-v1 exchanges: a request before `notifications/initialized` (400
    not-initialized), a second `initialize`, a body type neither wire has (415), a body that is not msgpack-v1
    (400), each answered in MessagePack; the session goes on, and its GET stream is a frame stream."""
    import msgpack

    from http_peers import httpx2

    accept = "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }

    async def run() -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=30) as client:

            async def post(
                value: Any, session: str | None, content_type: str = "application/msgpack", reads: str = accept
            ) -> Any:
                headers = {"content-type": content_type, "accept": reads, "mcp-protocol-version": "2025-11-25"}
                if session is not None:
                    headers["mcp-session-id"] = session
                body = value if isinstance(value, bytes) else msgpack.packb(value)
                return await client.post(fastmcp_url, content=body, headers=headers)

            opened = await post(initialize, None)
            session = opened.headers["mcp-session-id"]
            early = await post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
            again = await post({**initialize, "id": 3}, session)
            plain = await post(b"hello", session, "text/plain")
            broken = await post(b"\xc1", session)
            await post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
            listed = await post(
                {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, session,
                reads="application/msgpack, application/vnd.mcp-msgpack.stream",  # MessagePack only (SPEC 9.6)
            )
            async with client.stream(
                "GET", fastmcp_url, headers={"accept": "application/vnd.mcp-msgpack.stream", "mcp-session-id": session}
            ) as stream:
                get_type = stream.headers["content-type"]
        return {"opened": opened, "early": early, "again": again, "plain": plain, "broken": broken,
                "listed": listed, "get_type": get_type}

    replies = anyio.run(run)
    assert replies["opened"].headers["content-type"] == "application/msgpack"
    for name, status in [("early", 400), ("again", 400), ("plain", 415), ("broken", 400)]:
        reply = replies[name]
        assert reply.status_code == status, name
        assert reply.headers["content-type"] == "application/msgpack", name
        assert "error" in msgpack.unpackb(reply.content), name
    assert msgpack.unpackb(replies["early"].content)["error"]["data"]["reason"] == "not-initialized"
    listed = replies["listed"]
    assert listed.status_code == 200 and listed.headers["content-type"] == "application/msgpack"
    assert "tools" in msgpack.unpackb(listed.content)["result"]
    assert replies["get_type"] == "application/vnd.mcp-msgpack.stream"


def test_what_the_session_loop_line_cannot_carry_is_refused_clearly():
    """A 2026-07-28 request (1.x speaks revisions through 2025-11-25) is the transport's 400 unsupported version;
    the FastMCP 4 app (`mcp_msgpack.fastmcp.http_app`) needs the 2.x internals and says so."""
    from mcp.server.lowlevel import Server
    from starlette.testclient import TestClient

    from mcp_msgpack import streamable_http_app
    from mcp_msgpack.shared.sdk_compat import SDK_VERSION, SdkFeatureUnavailable

    import msgpack

    headers = {"content-type": "application/msgpack", "accept": "application/msgpack, application/vnd.mcp-msgpack.stream"}
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    with TestClient(streamable_http_app(Server("modern")), base_url="http://127.0.0.1") as client:
        opened = client.post("/mcp", content=msgpack.packb(initialize), headers=headers)
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        initialized = msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert client.post("/mcp", content=initialized, headers=session).status_code == 202
        ping = msgpack.packb({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        modern = client.post("/mcp", content=ping, headers={**session, "mcp-protocol-version": "2026-07-28"})
        served = client.post("/mcp", content=ping, headers={**session, "mcp-protocol-version": "2025-11-25"})
    assert modern.status_code == 400 and modern.headers["content-type"] == "application/msgpack"
    assert "Unsupported protocol version: 2026-07-28" in msgpack.unpackb(modern.content)["error"]["message"]
    assert served.status_code == 200 and msgpack.unpackb(served.content)["result"] == {}
    with pytest.raises(SdkFeatureUnavailable, match=f"mcp {SDK_VERSION}.*On mcp 1.x the server side is streamable_http_app"):
        from mcp_msgpack.fastmcp import http_app  # noqa: F401


def test_a_session_idle_past_its_timeout_is_ended_on_every_1x_line():
    """`session_idle_timeout` on 1.x: 1.30's transport times the session itself, 1.24's has no clock and ours
    (`IdleClock`, as on 2.0-2.1) ends it; either way its id is then 404. A bad timeout is refused at once."""
    import time

    import msgpack
    from mcp.server.lowlevel import Server
    from starlette.testclient import TestClient

    from mcp_msgpack import streamable_http_app

    with pytest.raises(ValueError, match="idle_timeout"):
        with TestClient(streamable_http_app(Server("idle"), session_idle_timeout=-1), base_url="http://127.0.0.1"):
            pass
    headers = {"content-type": "application/msgpack", "accept": "application/msgpack, application/vnd.mcp-msgpack.stream"}
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    ping = msgpack.packb({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    with TestClient(streamable_http_app(Server("idle"), session_idle_timeout=1.0), base_url="http://127.0.0.1") as client:
        opened = client.post("/mcp", content=msgpack.packb(initialize), headers=headers)
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        initialized = msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert client.post("/mcp", content=initialized, headers=session).status_code == 202
        assert client.post("/mcp", content=ping, headers=session).status_code == 200
        given_up = time.monotonic() + 20  # a bound for a loaded machine, not a measurement
        status = 200
        while status == 200 and time.monotonic() < given_up:
            time.sleep(1.5)  # past the timeout: a ping in between would hold the session
            status = client.post("/mcp", content=ping, headers=session).status_code
    assert status == 404


def _frames(body: bytes) -> list[Any]:
    """A frame stream's values (SPEC 9.3: a 4-byte big-endian length, then one MessagePack value)."""
    import msgpack

    values, at = [], 0
    while at + 4 <= len(body):
        size = int.from_bytes(body[at : at + 4], "big")
        if at + 4 + size > len(body):
            break
        values.append(msgpack.unpackb(body[at + 4 : at + 4 + size]))
        at += 4 + size
    return values


def test_a_reply_stream_resumes_from_the_event_store_on_frames(image):
    """With an event store, a reply's frame stream opens primed and each message carries its event id (SPEC
    9.3); a GET with Last-Event-ID at the priming id replays the progress and the answer as frames."""
    import msgpack

    from http_peers import httpx2

    stream_types = "application/msgpack, application/vnd.mcp-msgpack.stream"
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    call = {
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "counted", "arguments": {}, "_meta": {"progressToken": "p"}},
    }

    async def run(url: str) -> tuple[list[Any], list[Any]]:
        async with httpx2.AsyncClient(timeout=30) as client:
            headers = {"content-type": "application/msgpack", "accept": stream_types, "mcp-protocol-version": "2025-11-25"}
            opened = await client.post(url, content=msgpack.packb(initialize), headers=headers)
            headers["mcp-session-id"] = opened.headers["mcp-session-id"]
            await client.post(url, content=msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=headers)
            live = _frames((await client.post(url, content=msgpack.packb(call), headers=headers)).content)
            replayed: list[Any] = []
            get_headers = {
                "accept": "application/vnd.mcp-msgpack.stream", "mcp-session-id": headers["mcp-session-id"],
                "last-event-id": str(live[0]["prime"]),
            }
            async with client.stream("GET", url, headers=get_headers) as stream:
                body = b""
                async for chunk in stream.aiter_bytes():
                    body += chunk
                    replayed = _frames(body)
                    if any(frame.get("id") == 2 and "result" in frame for frame in replayed):
                        break
        return live, replayed

    with session_loop_server(image[0], "--lowlevel", "--event-store") as url:
        live, replayed = anyio.run(run, url)
    messages = [frame for frame in live if "jsonrpc" in frame]
    assert "prime" in live[0]
    assert [m["params"]["progress"] for m in messages[:-1]] == [1, 2, 3]
    assert messages[-1]["result"]["content"][0]["text"] == "counted"
    event_ids = [frame["id"] for frame in live if "jsonrpc" not in frame and "id" in frame]
    assert len(event_ids) == 4  # each message after its event id's control frame
    again = [frame for frame in replayed if "jsonrpc" in frame]
    assert again == messages
