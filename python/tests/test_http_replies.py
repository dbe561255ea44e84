"""One-body replies chosen per reply (SPEC 9.6) and held replies (9.6.2) on our Python server: each case's
Content-Type, Mcp-Msgpack-Wire and body bytes, against the same server configured otherwise."""

from __future__ import annotations

import json

import anyio
import httpx2
import msgpack
import pytest

from http_peers import python_server, write_image
from mcp_msgpack.wire import FrameReader

pytestmark = pytest.mark.timeout(120)

ANY = "application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
MSGPACK_ONLY = "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
JSON_READER = "application/json, text/event-stream"
OFFER = {"extensions": {"io.github.mcp-msgpack/native-bytes": {"version": 1}}}


def _initialize(capabilities: dict | None = None) -> dict:
    return {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities or {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def _call(name: str, arguments: dict | None = None, request_id: int = 5) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}


class Session:
    """A 2025-11-25 session opened by hand, posting MessagePack with the given Accept."""

    def __init__(self, url: str, accept: str = ANY, capabilities: dict | None = None) -> None:
        self.url = url
        self.accept = accept
        first = self.post(_initialize(capabilities))
        self.initialize = first
        self.headers = {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202

    def post(self, message: dict, accept: str | None = None) -> httpx2.Response:
        headers = {"accept": accept or self.accept, "content-type": "application/msgpack", **getattr(self, "headers", {})}
        return httpx2.post(self.url, content=msgpack.packb(message), headers=headers, timeout=30)


def _frames(body: bytes) -> list[dict]:
    reader = FrameReader(1 << 26)
    values = [msgpack.unpackb(p) for p in reader.feed(body)]
    reader.close()
    return values


def _result_text(reply: dict) -> str:
    return reply["result"]["content"][0]["text"]


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("image"))


@pytest.fixture(scope="module")
def default_server(image):
    with python_server(image[0], "--hold-interval=0.5") as url:
        yield url


@pytest.fixture(scope="module")
def sdk_single(image):
    """The SDK's own app answering one JSON body per request: the bytes our JSON replies must equal."""
    with python_server(image[0], "--json-sdk", "--json-response") as url:
        yield url


def _sdk_json_reply(url: str, message: dict) -> bytes:
    headers = {"accept": JSON_READER, "content-type": "application/json"}
    first = httpx2.post(url, json=_initialize(), headers=headers)
    headers |= {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    httpx2.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    reply = httpx2.post(url, json=message, headers=headers)
    assert reply.headers["content-type"] == "application/json"
    return reply.content


def test_a_small_result_is_one_json_body_with_the_wire_header_and_the_sdks_bytes(default_server, sdk_single):
    session = Session(default_server)
    reply = session.post(_call("echo", {"text": "héllo"}))
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/json" and reply.headers["mcp-msgpack-wire"] == "v1"
    # The JSON the SDK's own app writes for the same call, byte for byte: the SDK's dump of the same message.
    assert reply.content == _sdk_json_reply(sdk_single, _call("echo", {"text": "héllo"}))


def test_long_text_is_one_msgpack_body(default_server):
    session = Session(default_server)
    reply = session.post(_call("text"))
    assert reply.headers["content-type"] == "application/msgpack" and "mcp-msgpack-wire" not in reply.headers
    assert _result_text(msgpack.unpackb(reply.content)).startswith("The quick brown fox")


def test_without_replies_any_every_reply_is_msgpack(default_server):
    session = Session(default_server, accept=MSGPACK_ONLY)
    assert session.initialize.headers["content-type"] == "application/msgpack"
    reply = session.post(_call("echo", {"text": "x"}))
    assert reply.headers["content-type"] == "application/msgpack"  # SPEC 9.6 rule 3: a 0.1.0 client
    assert msgpack.unpackb(reply.content) == msgpack.unpackb(reply.content) and _result_text(msgpack.unpackb(reply.content)) == "x"


def test_a_native_bytes_confirmation_and_bin_media_are_always_msgpack(default_server, image):
    session = Session(default_server, capabilities=OFFER)
    assert session.initialize.headers["content-type"] == "application/msgpack"
    assert "io.github.mcp-msgpack/native-bytes" in msgpack.unpackb(session.initialize.content)["result"]["capabilities"]["extensions"]
    reply = session.post(_call("read_image"))
    assert reply.headers["content-type"] == "application/msgpack"
    assert msgpack.unpackb(reply.content)["result"]["content"][0]["data"] == image[1]  # bin, not base64


def test_progress_first_opens_the_frame_stream_with_the_progress_first(default_server):
    session = Session(default_server)
    message = _call("counted")
    message["params"]["_meta"] = {"progressToken": "p1"}
    reply = session.post(message)
    assert reply.headers["content-type"] == "application/vnd.mcp-msgpack.stream"
    values = [v for v in _frames(reply.content) if "jsonrpc" in v]
    assert [v.get("method") for v in values] == ["notifications/progress"] * 3 + [None]
    assert _result_text(values[-1]) == "counted"


def test_silence_past_the_hold_interval_opens_the_stream(default_server):
    session = Session(default_server)
    reply = session.post(_call("slow", {"seconds": 1.5}))
    assert reply.headers["content-type"] == "application/vnd.mcp-msgpack.stream"
    values = _frames(reply.content)
    assert values[0] == {}  # the keep-alive that sent the headers at the hold interval
    assert _result_text(values[-1]) == "slow"


def test_a_client_gone_while_held_leaves_nothing_and_the_session_goes_on(default_server):
    session = Session(default_server)

    async def go_away() -> None:
        headers = {"accept": ANY, "content-type": "application/msgpack", **session.headers}
        async with httpx2.AsyncClient() as http:
            with anyio.move_on_after(0.2):
                await http.post(default_server, content=msgpack.packb(_call("slow", {"seconds": 1.5}, 9)), headers=headers)

    anyio.run(go_away)
    # While the request runs its id is still in flight (SPEC 5.3): a new request under it is refused ...
    refused = session.post(_call("echo", {"text": "too early"}, 9))
    assert refused.status_code == 400 and msgpack.unpackb(refused.content)["error"]["data"]["reason"] == "duplicate-id"
    anyio.run(anyio.sleep, 1.6)  # ... and once it is answered (the answer dropped), the id is free again
    reply = session.post(_call("echo", {"text": "after"}, 9))
    assert reply.status_code == 200 and json.loads(reply.content)["result"]["content"][0]["text"] == "after"


def test_a_msgpack_body_from_a_json_reader_is_answered_in_json_without_a_transcode(default_server, sdk_single):
    session = Session(default_server, accept=JSON_READER)
    assert session.initialize.headers["content-type"] == "application/json"
    reply = session.post(_call("echo", {"text": "héllo"}))
    assert reply.headers["content-type"] == "application/json" and reply.headers["mcp-msgpack-wire"] == "v1"
    assert reply.content == _sdk_json_reply(sdk_single, _call("echo", {"text": "héllo"}))
    message = _call("counted")
    message["params"]["_meta"] = {"progressToken": "p1"}
    streamed = session.post(message)
    assert streamed.headers["content-type"].startswith("text/event-stream")
    assert streamed.headers["mcp-msgpack-wire"] == "v1"
    assert streamed.text.count("notifications/progress") == 3 and '"counted"' in streamed.text


@pytest.mark.parametrize(
    ("options", "small", "text", "stream"),
    [
        (("--encoding=smallest",), "application/msgpack", "application/msgpack", False),
        (("--encoding=json",), "application/json", "application/json", False),
        (("--reply-streams=always",), "application/vnd.mcp-msgpack.stream", "application/vnd.mcp-msgpack.stream", True),
        (("--json-response",), "application/json", "application/msgpack", False),
    ],
    ids=["smallest", "json", "always", "json-response"],
)
def test_the_options(image, options, small, text, stream):
    with python_server(image[0], *options) as url:
        session = Session(url, capabilities=OFFER)
        first = session.initialize
        if "--encoding=json" in options:
            # JSON always: the confirmation counts on MessagePack only, so none is sent (SPEC 8.1, 9.6 rule 4).
            assert first.headers["content-type"] == "application/json" and b"native-bytes" not in first.content
        echoed = session.post(_call("echo", {"text": "x"}))
        assert echoed.headers["content-type"] == small
        long_text = session.post(_call("text"))
        assert long_text.headers["content-type"] == text
        if stream:
            assert [v for v in _frames(echoed.content) if "jsonrpc" in v][-1]["result"]["content"][0]["text"] == "x"


def test_a_stock_json_client_gets_one_json_body_or_sse_as_needed(default_server, sdk_single):
    """SPEC 9.6.2 rule 3, JSON reply wire: the SDK's own JSON body, byte for byte; SSE when progress comes first."""
    headers = {"accept": JSON_READER, "content-type": "application/json"}
    first = httpx2.post(default_server, json=_initialize(), headers=headers)
    assert first.headers["content-type"] == "application/json" and "mcp-msgpack-wire" not in first.headers
    headers |= {"mcp-session-id": first.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    accepted = httpx2.post(default_server, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    assert accepted.status_code == 202
    reply = httpx2.post(default_server, json=_call("echo", {"text": "héllo"}), headers=headers)
    assert reply.headers["content-type"] == "application/json" and "mcp-msgpack-wire" not in reply.headers
    assert reply.content == _sdk_json_reply(sdk_single, _call("echo", {"text": "héllo"}))
    message = _call("counted")
    message["params"]["_meta"] = {"progressToken": "p1"}
    streamed = httpx2.post(default_server, json=message, headers=headers)
    assert streamed.headers["content-type"].startswith("text/event-stream")
    assert streamed.text.count("notifications/progress") == 3 and '"counted"' in streamed.text
    # Refused as the SDK refuses: a body that is JSON but not a message.
    bad = httpx2.post(default_server, json={"jsonrpc": "2.0", "id": 3}, headers=headers)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == -32602


def test_held_replies_with_an_event_store(image):
    """SPEC 9.6.2 rules 3-4 with resumability: a one-body reply is never stored; a reply that needs a stream
    stores its priming event first, then its messages, and opens primed (9.3), each message after its id."""
    with python_server(image[0], "--event-store", "--reply-streams=when-needed") as url:
        session = Session(url)
        echoed = session.post(_call("echo", {"text": "x"}, 11))
        assert echoed.headers["content-type"] == "application/json"
        message = _call("counted", request_id=12)
        message["params"]["_meta"] = {"progressToken": "p1"}
        streamed = session.post(message)
        assert streamed.headers["content-type"] == "application/vnd.mcp-msgpack.stream"
        frames = _frames(streamed.content)
        assert "prime" in frames[0]
        assert [("jsonrpc" not in f, f.get("method")) for f in frames[1:]] == [(True, None), (False, "notifications/progress")] * 3 + [(True, None), (False, None)]
        held = json.loads(session.post(_call("stored", request_id=13)).content)["result"]["content"][0]["text"]
    assert held.splitlines() == ["12 prime"] + ["12 notifications/progress"] * 3 + ["12 answer"]
