"""Issue 39 item 3: what SPEC says every receiver MUST accept, accepted here: an integral float id (3.4) on
HTTP (on stdio: test_spec_acceptances_stdio.py, run on every SDK line), MessagePack batches of up to 100
messages on HTTP (9.1, 9.4; over 100 or holding `initialize` refused with -32600), and a map 32 of 1M entries
of one key (within 4.1.9's default budget)."""

from __future__ import annotations

import struct

import httpx2
import msgpack
import pytest

from http_peers import python_server, write_image
from mcp_msgpack.wire import FrameReader, decode_value
from test_spec_acceptances_stdio import float_id

pytestmark = pytest.mark.timeout(180)

ANY = "application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
JSON_READER = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    path, _ = write_image(tmp_path_factory.mktemp("acceptances"))
    with python_server(path) as address:
        yield address


class _Session:
    def __init__(self, url: str) -> None:
        self.url = url
        opened = self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, headers={})
        self.headers = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202

    def post(self, message: object, *, headers: dict | None = None, accept: str = ANY, raw: bytes | None = None) -> httpx2.Response:
        body = raw if raw is not None else msgpack.packb(message)
        merged = {"accept": accept, "content-type": "application/msgpack", **(self.headers if headers is None else headers)}
        return httpx2.post(self.url, content=body, headers=merged, timeout=60)


def _messages(response: httpx2.Response) -> list[dict]:
    if response.headers["content-type"].startswith("application/vnd.mcp-msgpack.stream"):
        reader = FrameReader(1 << 26)
        return [v for v in (msgpack.unpackb(p) for p in reader.feed(response.content)) if "jsonrpc" in v]
    if response.headers["content-type"].startswith("text/event-stream"):
        import json

        return [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()]
    value = msgpack.unpackb(response.content) if "msgpack" in response.headers["content-type"] else response.json()
    return value if isinstance(value, list) else [value]


def test_an_integral_float_id_is_answered_on_http(url):
    session = _Session(url)
    reply = session.post(None, raw=float_id("tools/call", 7.0, {"name": "echo", "arguments": {"text": "seven"}}))
    assert reply.status_code == 200
    (answer,) = _messages(reply)
    assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == "seven"


def _echo(request_id: int) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": f"n{request_id}"}}}


@pytest.mark.parametrize("size", [1, 2, 100])
@pytest.mark.parametrize("accept", [ANY, JSON_READER], ids=["frames", "sse"])
def test_a_msgpack_batch_of_up_to_100_is_answered(url, size, accept):
    session = _Session(url)
    reply = session.post([_echo(10 + i) for i in range(size)], accept=accept)
    assert reply.status_code == 200, reply.content
    answers = {m["id"]: m["result"]["content"][0]["text"] for m in _messages(reply) if "id" in m}
    assert answers == {10 + i: f"n{10 + i}" for i in range(size)}


def test_a_batch_of_notifications_is_202(url):
    session = _Session(url)
    notes = [{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}] * 2
    assert session.post(notes).status_code == 202


@pytest.mark.parametrize("body", ["over-100", "initialize", "duplicate"])
def test_a_batch_spec_refuses_is_400(url, body):
    session = _Session(url)
    batch = {
        "over-100": [_echo(i) for i in range(101)],
        "initialize": [{"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}],
        "duplicate": [_echo(4), _echo(4)],
    }[body]
    reply = session.post(batch)
    assert reply.status_code == 400
    assert msgpack.unpackb(reply.content)["error"]["code"] == -32600
    assert session.post(_echo(5)).status_code == 200  # the session goes on


def test_a_map32_of_one_key_a_million_times_is_accepted():
    """Within 4.1.9's default budget (1 container, 1 short key, 1,024 shapes, 1M + 8 words): SPEC's MUST.
    It builds one one-entry dict, so this receiver's heap bound prices it as that (a key again adds nothing)."""
    count = 1_000_000
    payload = b"\xdf" + struct.pack(">I", count) + b"\xa1k\xc0" * count
    assert decode_value(payload) == {"k": None}
