"""Content codings (SPEC 10) in the Python package: the coders and their caps, fixtures/coded/ decoded as SPEC says,
our server coding replies and streams for the stock client and ours (both wires), coded request bodies from our
client, and the hostile cases: ratio bombs, corrupt and truncated codings, codings not offered."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import shutil
import subprocess
import tracemalloc
import zlib
from pathlib import Path

import anyio
import httpx2
import msgpack
import pytest
from mcp.client.session import ClientSession

from fixtures import FIXTURES, expand, read_source
from http_peers import sdk_json_client, ROOT, free_port, python_server, recording_client, running, write_image
from mcp_msgpack.client import streamable_http_client  # the client this SDK line carries (client/__init__.py)
from mcp_msgpack.client.request_coding import RequestCoding
from mcp_msgpack.shared import codings
from mcp_msgpack.shared.mcp_dictionary import MCP_DICTIONARY_CODING, encode_with_dictionary, mcp_dictionary_v1
from mcp_msgpack.wire import ReceiveLimits
from mcp_msgpack.shared.accept_encoding import negotiate_coding
from mcp_msgpack.server.native_bytes_body import mostly_native_bytes

pytestmark = pytest.mark.timeout(120)

MSGPACK_ACCEPT = "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


# --- the coders -------------------------------------------------------------------------------------------


def test_this_python_has_every_coding_the_tests_pin():
    # requirements-test.txt pins backports-zstd and brotli: the tests run all three codings.
    assert codings.CODINGS == ("zstd", "br", "gzip")


@pytest.mark.parametrize("coding", codings.CODINGS)
def test_each_coding_round_trips_whole_and_as_a_flushed_stream(coding):
    plain = b"".join(b"line %d: the quick brown fox\n" % i for i in range(3000))
    coded = codings.encode(coding, plain)
    assert len(coded) < len(plain) // 10
    assert codings.decode(coding, coded, len(plain)) == plain
    encoder = codings.StreamEncoder(coding)
    decoder = codings.stream_decoder(coding, 1 << 20)
    events = [b"event: message\ndata: {\"n\": %d}\n\n" % i for i in range(5)]
    for event in events:
        # each flushed event decodes whole before the next is coded (SPEC 10.2 rule 4)
        assert decoder.feed(encoder.event(event)) == event
    assert decoder.feed(encoder.end()) == b"" and decoder.finished()


@pytest.mark.parametrize("coding", codings.CODINGS)
def test_a_ratio_bomb_is_refused_with_no_more_than_the_cap_allocated(coding):
    bomb = codings.encode(coding, b"\0" * (64 << 20))
    assert len(bomb) < 64 << 10
    tracemalloc.start()
    try:
        with pytest.raises(codings.DecodedTooLarge):
            codings.decode(coding, bomb, 1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 << 20  # the 1 MiB cap, one decoder step beyond it, and the parts joined: never the 64 MiB


@pytest.mark.parametrize("coding", codings.CODINGS)
def test_truncated_and_corrupt_codings_are_errors(coding):
    plain = json.dumps({"text": "the quick brown fox " * 500}).encode()
    coded = codings.encode(coding, plain)
    with pytest.raises(codings.CodingError):
        codings.decode(coding, coded[:-8], 1 << 20)
    with pytest.raises(codings.CodingError):
        codings.decode(coding, coded + b"more", 1 << 20)
    with pytest.raises(codings.CodingError):
        codings.decode(coding, b"\x00\x01" + coded[2:], 1 << 20)  # a damaged header
    damaged = bytearray(coded)
    for at in range(len(damaged) // 3, len(damaged) // 3 + 16):
        damaged[at] ^= 0x5A
    # Damage inside: an error, or (zstd without its checksum) other bytes, which the wire then refuses (SPEC 10.4).
    try:
        assert codings.decode(coding, bytes(damaged), 1 << 20) != plain
    except codings.CodingError:
        pass


def test_accept_encoding_is_negotiated_by_q_values_with_the_server_order_breaking_ties():
    order = ("zstd", "br", "gzip")
    assert negotiate_coding("gzip, deflate", order) == "gzip"
    assert negotiate_coding("gzip, deflate, br, zstd", order) == "zstd"
    assert negotiate_coding("br;q=1, zstd;q=0.5", order) == "br"
    assert negotiate_coding("*", order) == "zstd"
    assert negotiate_coding("*, zstd;q=0", order) == "br"
    assert negotiate_coding("identity", order) is None
    assert negotiate_coding(None, order) is None


def test_media_bodies_are_found_by_their_bins():
    image = bytes(range(256)) * 400
    body = msgpack.packb({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "image", "data": image}]}})
    assert mostly_native_bytes(body)
    text = msgpack.packb({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "Łódź " * 20000}]}})
    assert not mostly_native_bytes(text)


# --- fixtures/coded (SPEC 10: what another implementation's bytes must decode to) -------------------------


def _coded_fixtures():
    folder = FIXTURES / "coded"
    return [(path.stem, read_source(path), path.with_suffix(".coded").read_bytes()) for path in sorted(folder.glob("*.json"))]


def _plain_parts(fixture):
    """As fixtures/coded.mjs: a body's bytes, or each event of a stream."""
    parts = []
    for source in fixture["messages"]:
        message = expand(source)
        if fixture["wire"] == "json":
            text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
            parts.append(text.encode() if fixture["form"] == "body" else f"event: message\ndata: {text}\n\n".encode())
        else:
            payload = msgpack.packb(message)
            parts.append(payload if fixture["form"] == "body" else len(payload).to_bytes(4, "big") + payload)
    return parts


@pytest.mark.parametrize("name,fixture,coded", _coded_fixtures(), ids=lambda v: v if isinstance(v, str) else "")
def test_coded_fixture(name, fixture, coded):
    coding = fixture["coding"]
    refuse = fixture.get("refuse")
    if refuse == "too-large":
        with pytest.raises(codings.DecodedTooLarge):
            codings.decode(coding, coded, fixture["cap"])
        return
    if refuse == "does-not-decode":
        with pytest.raises(codings.CodingError):
            codings.decode(coding, coded, 64 << 20)
        return
    parts = _plain_parts(fixture)
    if fixture["form"] == "body":
        decoded = codings.decode(coding, coded, 64 << 20)
        value = json.loads(decoded) if fixture["wire"] == "json" else msgpack.unpackb(decoded)
        assert value == expand(fixture["messages"][0])
        return
    # A stream: the prefix up to each flush decodes to exactly the events before it, the whole to all of them.
    decoder = codings.stream_decoder(coding, 64 << 20)
    start = 0
    for index, end in enumerate(fixture["flushes"]):
        out = decoder.feed(coded[start:end])
        assert out == parts[index], f"{name}: event {index}"
        start = end
    assert decoder.feed(coded[start:]) == b"" and decoder.finished()


# --- the MCP dictionary coding (SPEC 10.5) ------------------------------------------------------------------


def test_the_packaged_dictionary_is_the_fixture_byte_for_byte():
    assert mcp_dictionary_v1() == (FIXTURES / "dictionary" / "mcp-dictionary-v1.bin").read_bytes()
    assert len(mcp_dictionary_v1()) == 2353


def test_python_decodes_the_dictionary_fixture_and_codes_what_it_decodes():
    source = json.loads((FIXTURES / "dictionary" / "reply-msgpack.json").read_text())
    coded = (FIXTURES / "dictionary" / "reply-msgpack.coded").read_bytes()
    plain = codings.decode(MCP_DICTIONARY_CODING, coded, 1 << 20)
    assert msgpack.unpackb(plain) == source["message"] and plain == msgpack.packb(source["message"])
    ours = encode_with_dictionary(plain)
    assert codings.decode(MCP_DICTIONARY_CODING, ours, len(plain)) == plain
    assert len(ours) < len(plain) / 2  # the dictionary is what makes so small a body shrink
    with pytest.raises(codings.CodingError):
        codings.decode(MCP_DICTIONARY_CODING, ours[:-3], 1 << 20)
    with pytest.raises(codings.CodingError):  # raw deflate without the dictionary preset does not decode it
        codings.decode(MCP_DICTIONARY_CODING, zlib.compress(plain)[2:-4] + b"junk", 1 << 20)
    with pytest.raises(codings.DecodedTooLarge):
        codings.decode(MCP_DICTIONARY_CODING, ours, len(plain) - 1)


# --- our server -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("image"))


@pytest.fixture(scope="module")
def coding_server(image):
    with python_server(image[0], "--compression=true") as url:
        yield url


@pytest.fixture(scope="module")
def default_server(image):
    with python_server(image[0]) as url:
        yield url


async def _session(url, client_factory):
    client, recorder = recording_client()
    async with client, client_factory(url, client) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        echoed = (await session.call_tool("echo", {"text": "héllo " * 400})).content[0].text
        records = (await session.call_tool("records", {})).content[0].text
        counted = (await session.call_tool("counted", {}, progress_callback=_ignore)).content[0].text
        image = (await session.call_tool("read_image", {})).content[0].data
    return names, echoed, records, counted, image, recorder.exchanges


async def _ignore(*_args) -> None:
    pass


def _check_session(result, data):
    names, echoed, records, counted, image, exchanges = result
    assert {"echo", "records", "counted", "read_image"} <= names and echoed == "héllo " * 400
    assert "record 599" in records and counted
    assert (base64.b64decode(image) if isinstance(image, str) else image) == data
    return exchanges


def _decoded(exchange) -> bytes:
    """A recorded body decoded (a stream the client stopped reading at its response may lack the coding's end)."""
    if not exchange["coding"]:
        return bytes(exchange["body"])
    return codings.stream_decoder(exchange["coding"], 64 << 20).feed(bytes(exchange["body"]))


def test_the_stock_client_gets_coded_replies_and_streams(coding_server, image):
    exchanges = _check_session(
        anyio.run(_session, coding_server, sdk_json_client),
        image[1],
    )
    replies = [e for e in exchanges if e["method"] == "POST" and e["status"] == 200]
    assert all("Accept-Encoding" in e["vary"] for e in exchanges)
    large = [e for e in replies if len(_decoded(e)) >= 1024]
    assert large and all(e["coding"] == "zstd" for e in large)  # httpx2 offers zstd here; the server's first
    records = next(e for e in replies if b"record 599" in _decoded(e))
    assert len(records["body"]) < len(_decoded(records)) / 4
    streamed = [e for e in replies if (e["type"] or "").startswith("text/event-stream")]
    assert streamed and all(e["coding"] == "zstd" for e in streamed)
    assert not any(e["coding"] == MCP_DICTIONARY_CODING for e in exchanges)  # a stock client never names it
    _check_accept_encoding_outside_sessions_only(exchanges)


def _check_accept_encoding_outside_sessions_only(exchanges):
    """SPEC 10.2 rule 5: the codings taken are named on the reply to a request without Mcp-Session-Id only."""
    opening = [e for e in exchanges if e["request_session"] is None]
    inside = [e for e in exchanges if e["request_session"] is not None]
    assert opening and all(e["accept_encoding"] == "zstd, br, gzip" for e in opening)
    assert inside and all(e["accept_encoding"] is None for e in inside)


@pytest.mark.parametrize("wire", [pytest.param("msgpack", marks=pytest.mark.needs_http_client), "json"])
def test_our_client_gets_coded_replies_and_codes_large_requests(coding_server, image, wire):
    exchanges = _check_session(
        anyio.run(_session, coding_server, lambda u, c: streamable_http_client(u, wire=wire, native_bytes=True, http_client=c)),
        image[1],
    )
    posts = [e for e in exchanges if e["method"] == "POST"]
    assert any(e["coding"] == "zstd" for e in posts if e["status"] == 200)
    echo = next(e for e in posts if b"echo" in _decoded({"coding": e["request_coding"], "body": e["request_body"]}))
    _check_accept_encoding_outside_sessions_only(exchanges)
    if wire == "msgpack":
        # the server said it takes zstd (Accept-Encoding on the initialize reply only): the 2.4 KB call, later in
        # the session, went coded: the client kept what it learnt (SPEC 10.2 rule 5)
        assert echo["request_coding"] == "zstd" and len(echo["request_body"]) < 1024
        image_reply = next(e for e in posts if e["status"] == 200 and bytes(image[1][:4096]) in bytes(e["body"]))
        assert image_reply["coding"] is None  # mostly native bytes: not coded (SPEC 10.2 rule 3)
        # it offers the dictionary coding (SPEC 10.5) and decoded the small replies the server sent in it
        assert all(e["request_accept_encoding"].startswith(f"{MCP_DICTIONARY_CODING}, ") for e in posts)
        in_dictionary = [e for e in posts if e["coding"] == MCP_DICTIONARY_CODING]
        assert in_dictionary and all(96 <= len(_decoded(e)) < 4096 for e in in_dictionary)
        assert not any(e["coding"] == MCP_DICTIONARY_CODING for e in exchanges if e["method"] == "GET")
    else:
        assert echo["request_coding"] is None  # the JSON wire is the SDK's own posting
        assert not any(e["coding"] == MCP_DICTIONARY_CODING for e in exchanges)


def test_on_loopback_the_default_codes_nothing_but_varies(default_server):
    with httpx2.Client(timeout=30) as client:
        reply = client.post(
            default_server, json=INIT,
            headers={"accept": "application/json, text/event-stream", "accept-encoding": "gzip, zstd, br"},
        )
    assert reply.status_code == 200 and "content-encoding" not in reply.headers
    assert "accept-encoding" not in reply.headers  # nothing advertised where replies are not coded (as TS)
    assert reply.headers["vary"] == "Accept, Content-Type, Accept-Encoding"


def _post(url, body, coding, *, accept=MSGPACK_ACCEPT, content_type="application/msgpack"):
    with httpx2.Client(timeout=30) as client:
        return client.post(
            url, content=body,
            headers={"accept": accept, "content-type": content_type, "content-encoding": coding, "accept-encoding": "gzip"},
        )


def test_a_coded_request_body_is_decoded(coding_server):
    body = msgpack.packb({**INIT, "params": {**INIT["params"], "clientInfo": {"name": "x" * 3000, "version": "1"}}})
    for coding in codings.CODINGS:
        reply = _post(coding_server, codings.encode(coding, body), coding)
        assert reply.status_code == 200, reply.text
        assert reply.headers["accept-encoding"] == "zstd, br, gzip"


def _post_plain(client, url, message, accept_encoding, session=None, accept=MSGPACK_ACCEPT):
    headers = {"accept": accept, "content-type": "application/msgpack", "accept-encoding": accept_encoding}
    if session:
        headers.update({"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
    return client.post(url, content=msgpack.packb(message), headers=headers)


def test_small_replies_go_in_the_dictionary_coding_only_to_a_client_that_names_it(coding_server):
    with httpx2.Client(timeout=30) as client:
        opened = _post_plain(client, coding_server, INIT, f"{MCP_DICTIONARY_CODING}, gzip")
        plain = codings.decode(MCP_DICTIONARY_CODING, opened.content, 1 << 20)  # httpx2 left it as it came
        assert opened.headers["content-encoding"] == MCP_DICTIONARY_CODING and 96 <= len(plain) < 4096
        assert msgpack.unpackb(plain)["result"]["serverInfo"] and len(opened.content) < len(plain) / 2
        assert opened.headers["accept-encoding"] == "zstd, br, gzip"  # no Mcp-Session-Id: it opens the session
        session = opened.headers["mcp-session-id"]
        # `*` does not cover it, and q=0 refuses it: the standard codings from 256 bytes instead
        for offered in ("*", f"{MCP_DICTIONARY_CODING};q=0, gzip", "gzip, deflate, br, zstd"):
            other = _post_plain(client, coding_server, INIT, offered)
            assert other.headers.get("content-encoding") != MCP_DICTIONARY_CODING, offered
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert _post_plain(client, coding_server, initialized, "gzip", session).status_code == 202
        # within the session: a reply under 96 bytes goes uncoded, and no reply names the codings taken
        ping = _post_plain(client, coding_server, {"jsonrpc": "2.0", "id": 5, "method": "ping"}, MCP_DICTIONARY_CODING, session)
        assert ping.status_code == 200 and "content-encoding" not in ping.headers and len(ping.content) < 96
        assert "accept-encoding" not in ping.headers
        call = {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "a" * 300}}}
        echoed = _post_plain(client, coding_server, call, MCP_DICTIONARY_CODING, session)
        assert echoed.headers["content-encoding"] == MCP_DICTIONARY_CODING and "accept-encoding" not in echoed.headers
        plain = codings.decode(MCP_DICTIONARY_CODING, echoed.content, 1 << 20)
        assert msgpack.unpackb(plain)["result"]["content"][0]["text"] == "a" * 300 and 256 <= len(plain) < 1024
        # the same reply to a client that does not name it: gzip, as it is 256 bytes or more (SPEC 10.2 rule 3)
        gzipped = _post_plain(client, coding_server, {**call, "id": 7}, "gzip", session)
        assert gzipped.headers["content-encoding"] == "gzip" and gzipped.content == plain.replace(b"\x06", b"\x07", 1)
        # a request body in it is a coding the server does not take (SPEC 10.5 rule 2): 415
        refused = _post(coding_server, encode_with_dictionary(msgpack.packb(INIT)), MCP_DICTIONARY_CODING)
        assert refused.status_code == 415 and refused.headers["accept-encoding"] == "zstd, br, gzip"


async def _sent_through_coded_send(scope, policy, *messages) -> tuple[object, list[dict]]:
    """What the server's coding layer sends on for `messages` (ASGI) of one reply, and its send."""
    from mcp_msgpack.server.content_coding import coded_send

    sent: list[dict] = []

    async def sink(message) -> None:
        sent.append(message)

    send = coded_send(scope, sink, policy)
    for message in messages:
        await send(message)
    return send, sent


def test_a_415_keeps_its_own_accept_encoding_inside_a_session():
    from mcp_msgpack.server.content_coding import CompressionPolicy

    policy = CompressionPolicy(replies=True, requests=False)
    headers = [(b"accept-encoding", b"gzip"), (b"mcp-session-id", b"s1")]
    scope = {"type": "http", "method": "POST", "headers": headers, "server": ("10.0.0.1", 80)}
    refusal = {"type": "http.response.start", "status": 415, "headers": [(b"content-type", b"application/json"), (b"accept-encoding", b"identity")]}
    body = {"type": "http.response.body", "body": b"{}", "more_body": False}
    _, sent = anyio.run(_sent_through_coded_send, scope, policy, refusal, body)
    assert [v for n, v in sent[0]["headers"] if n == b"accept-encoding"] == [b"identity"]


def test_the_client_keeps_the_codings_it_learnt_for_the_session():
    coding = RequestCoding()
    coding.learn(httpx2.Response(200, headers={"accept-encoding": "gzip, zstd"}))
    assert coding.coding == "zstd"
    coding.learn(httpx2.Response(200))  # a reply within the session, without the header: nothing changes
    assert coding.coding == "zstd"
    assert coding.code(b"x" * 1023) is None and coding.code(b"x" * 1024)[1] == "zstd"  # requests: from 1 KiB
    coding.learn(httpx2.Response(200, headers={"accept-encoding": "identity"}))
    assert coding.coding is None


def test_hostile_coded_bodies_get_a_clear_4xx_and_the_server_goes_on(coding_server):
    plain = msgpack.packb(INIT)
    bomb = gzip.compress(b"\x91" + b"\xc0" * (16 << 20), 9)  # 16 MiB of nil from 16 KB: past the 4 MiB cap
    assert len(bomb) < 64 << 10
    reply = _post(coding_server, bomb, "gzip")
    assert reply.status_code == 413 and reply.headers["connection"] == "close"
    assert msgpack.unpackb(reply.content)["error"]["code"] == -32600
    for damaged in (gzip.compress(plain)[:-6], b"\x1f\x8b\x08\x00garbage-garbage-garbage"):
        reply = _post(coding_server, damaged, "gzip")
        assert reply.status_code == 400 and msgpack.unpackb(reply.content)["error"]["code"] == -32700
    for coding in ("compress", "deflate", "gzip, gzip"):
        reply = _post(coding_server, zlib.compress(plain), coding)
        assert reply.status_code == 415 and reply.headers["accept-encoding"] == "zstd, br, gzip"
    assert _post(coding_server, gzip.compress(plain), "gzip").status_code == 200


def test_with_compression_off_a_coded_body_is_415_identity(image):
    with python_server(image[0], "--compression=false") as url:
        reply = _post(url, gzip.compress(msgpack.packb(INIT)), "gzip")
    assert reply.status_code == 415 and reply.headers["accept-encoding"] == "identity"


def test_a_coded_frame_stream_is_flushed_per_event(coding_server):
    with httpx2.Client(timeout=30) as client:
        opened = client.post(coding_server, content=msgpack.packb(INIT), headers={"accept": MSGPACK_ACCEPT, "content-type": "application/msgpack"})
        session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        client.post(coding_server, content=msgpack.packb({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                    headers={"accept": MSGPACK_ACCEPT, "content-type": "application/msgpack", **session})
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "counted", "arguments": {}, "_meta": {"progressToken": 7}}}
        with client.stream("POST", coding_server, content=msgpack.packb(call), headers={
            "accept": "application/vnd.mcp-msgpack.stream, application/msgpack", "content-type": "application/msgpack",
            "accept-encoding": "br", **session,
        }) as reply:
            assert reply.headers["content-type"].startswith("application/vnd.mcp-msgpack.stream")
            assert reply.headers["content-encoding"] == "br"
            decoder = codings.stream_decoder("br", 1 << 20)
            plain = b""
            for chunk in reply.iter_raw():
                plain += decoder.feed(chunk)
            assert decoder.finished()
    messages = []
    while plain:
        size = int.from_bytes(plain[:4], "big")
        messages.append(msgpack.unpackb(plain[4 : 4 + size]))
        plain = plain[4 + size :]
    assert [m.get("method") for m in messages if "method" in m] == ["notifications/progress"] * 3
    assert messages[-1]["id"] == 2


# --- against the TypeScript side --------------------------------------------------------------------------

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node")


def _ts_client(url: str, mode: str) -> dict:
    script = Path(__file__).parent / "ts" / "http_client.mjs"
    out = subprocess.run(["node", str(script), url, mode, "coded"], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@needs_node
def test_ts_clients_read_our_coded_replies_and_ours_codes_its_requests(coding_server, image):
    # Node 20 here: no zstd in its zlib, so the TS clients offer br and gzip (ours) or gzip and deflate (undici).
    ours = _ts_client(coding_server, "msgpack")
    assert ours["bigEchoed"] and ours["wire"] == "msgpack" and ours["sha256"] == hashlib.sha256(image[1]).hexdigest()
    assert {"br", "zstd"} & set(ours["replyCodings"]), ours["replyCodings"]
    assert {"br", "zstd"} & set(ours["requestCodings"]), ours["requestCodings"]  # the server said it takes them
    assert MCP_DICTIONARY_CODING in ours["replyCodings"]  # it names it: its small replies go in it (SPEC 10.5)
    sdk = _ts_client(coding_server, "sdk")
    assert sdk["bigEchoed"] and sdk["sha256"] == hashlib.sha256(image[1]).hexdigest()
    assert "gzip" in sdk["replyCodings"] and sdk["requestCodings"] == [None]
    assert MCP_DICTIONARY_CODING not in sdk["replyCodings"]  # the SDK's client does not name it


@needs_node
@pytest.mark.parametrize("wire", [pytest.param("msgpack", marks=pytest.mark.needs_http_client), "json"])
def test_our_client_against_the_ts_server_with_codings_on(wire):
    port = free_port()
    script = Path(__file__).parent / "ts" / "coding_server.mjs"
    with running(["node", str(script), str(port)], port) as url:

        async def session():
            client, recorder = recording_client()
            async with client, streamable_http_client(url, wire=wire, http_client=client) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                echoed = (await s.call_tool("echo", {"text": "héllo " * 400})).content[0].text
                bulk = (await s.call_tool("bulk", {})).content[0].text
            return echoed, bulk, recorder.exchanges

        echoed, bulk, exchanges = anyio.run(session)
    assert echoed == "héllo " * 400 and bulk.count("quick brown fox") == 800
    posts = [e for e in exchanges if e["method"] == "POST"]
    bulk_reply = next(e for e in posts if b"line 799" in _decoded(e))
    assert bulk_reply["coding"] == "zstd" or bulk_reply["coding"] == "br"  # Node 20: br; Node >= 22.15: zstd
    assert len(bulk_reply["body"]) < 8000
    echo = next(e for e in posts if b"echo" in _decoded({"coding": e["request_coding"], "body": e["request_body"]}))
    # The TS server names the codings it takes (Accept-Encoding): our client codes the 2.4 KB call on MessagePack;
    # on JSON the posting is the SDK's own, uncoded.
    if wire == "msgpack":
        assert echo["request_coding"] in ("br", "zstd") and len(echo["request_body"]) < 1024
        # the TS server's small replies in the dictionary coding, decoded by our client (SPEC 10.5)
        assert any(e["coding"] == MCP_DICTIONARY_CODING for e in posts)
    else:
        assert echo["request_coding"] is None


# --- our client against hostile coded replies (a scripted server: httpx2.MockTransport) --------------------


def _scripted(call_reply):
    """A msgpack-v1 server in a function: initialize answered, notifications 202, tools/call by `call_reply`."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method != "POST":
            return httpx2.Response(405 if request.method == "GET" else 200)
        message = msgpack.unpackb(request.content)
        if "id" not in message:
            return httpx2.Response(202)
        if message["method"] == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
            body = msgpack.packb({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return httpx2.Response(200, headers={"content-type": "application/msgpack", "mcp-session-id": "s1"}, content=body)
        if message["method"] == "tools/list":
            body = msgpack.packb({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})
            return httpx2.Response(200, headers={"content-type": "application/msgpack"}, content=body)
        return call_reply(message)

    return handler


async def _call_through(handler) -> Exception:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    limits = ReceiveLimits(max_frame_bytes=4 << 20)  # the client's cap on one reply (default 64 MiB)
    opened = streamable_http_client("http://127.0.0.1:9/mcp", http_client=client, limits=limits)
    async with client, opened as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        with pytest.raises(Exception) as caught:
            await session.call_tool("any", {})
        return caught.value


def _call_traced(handler) -> tuple[Exception, int]:
    """`_call_through` with the peak of what Python allocated meanwhile."""
    tracemalloc.start()
    try:
        error = anyio.run(_call_through, handler)
        return error, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _streamed(headers: dict, body: bytes) -> httpx2.Response:
    """A reply whose body httpx2 decodes as the client reads it, as off the network (content= decodes at once)."""
    return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(body))


def _result(message, text: str) -> bytes:
    return msgpack.packb({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}})


@pytest.mark.needs_http_client
def test_our_client_refuses_a_coded_reply_bomb_within_its_cap():
    def bomb(message):
        # 16 MiB of text in a few KB of gzip, coded a MiB at a time (so the test itself holds no 16 MiB)
        coder = zlib.compressobj(9, zlib.DEFLATED, 31)
        text_head = b"\x83\xa7jsonrpc\xa32.0\xa2id" + msgpack.packb(message["id"]) + b"\xa6result\x81\xa7content\x91\x82"
        text_head += b"\xa4type\xa4text\xa4text\xdb" + (16 << 20).to_bytes(4, "big")
        parts = [coder.compress(text_head)] + [coder.compress(b" " * (1 << 20)) for _ in range(16)] + [coder.flush()]
        body = b"".join(parts)
        return _streamed({"content-type": "application/msgpack", "content-encoding": "gzip"}, body)

    error, peak = _call_traced(_scripted(bomb))
    assert "once decoded" in str(error)
    assert peak < 12 << 20  # the 4 MiB cap and httpx2's 1 MiB decoder steps, joined: never the 16 MiB


@pytest.mark.needs_http_client
def test_our_client_refuses_codings_it_did_not_offer_and_codings_that_do_not_decode():
    def unoffered(message):
        body = zlib.compress(_result(message, "x" * 2000))
        return _streamed({"content-type": "application/msgpack", "content-encoding": "compress"}, body)

    assert "did not offer" in str(anyio.run(_call_through, _scripted(unoffered)))

    def truncated(message):
        body = gzip.compress(_result(message, "the quick brown fox " * 200))[:-40]
        return _streamed({"content-type": "application/msgpack", "content-encoding": "gzip"}, body)

    assert anyio.run(_call_through, _scripted(truncated))

    def corrupt_stream(message):
        frame = msgpack.packb({"jsonrpc": "2.0", "id": message["id"], "result": {"content": []}})
        coded = bytearray(codings.encode("zstd", len(frame).to_bytes(4, "big") + frame))
        coded[4:12] = b"\xff" * 8  # the frame header: not zstd any more
        headers = {"content-type": "application/vnd.mcp-msgpack.stream", "content-encoding": "zstd"}
        return _streamed(headers, bytes(coded))

    assert anyio.run(_call_through, _scripted(corrupt_stream))


@pytest.mark.needs_http_client
def test_our_client_refuses_dictionary_replies_past_its_cap_broken_or_on_a_stream():
    def bomb(message):
        coder = zlib.compressobj(9, zlib.DEFLATED, -15, zdict=mcp_dictionary_v1())
        body = coder.compress(_result(message, "")[:-1]) + b"".join(coder.compress(b" " * (1 << 20)) for _ in range(8))
        return _streamed({"content-type": "application/msgpack", "content-encoding": MCP_DICTIONARY_CODING}, body + coder.flush())

    error, peak = _call_traced(_scripted(bomb))
    assert "once decoded" in str(error) and peak < 8 << 20  # the 4 MiB cap, never the 8 MiB

    def truncated(message):
        body = encode_with_dictionary(_result(message, "the quick brown fox " * 20))[:-5]
        return _streamed({"content-type": "application/msgpack", "content-encoding": MCP_DICTIONARY_CODING}, body)

    assert "did not decode" in str(anyio.run(_call_through, _scripted(truncated)))

    def on_a_stream(message):
        frame = _result(message, "hello")
        body = encode_with_dictionary(len(frame).to_bytes(4, "big") + frame)
        return _streamed({"content-type": "application/vnd.mcp-msgpack.stream", "content-encoding": MCP_DICTIONARY_CODING}, body)

    assert anyio.run(_call_through, _scripted(on_a_stream))

    def fine(message):
        body = encode_with_dictionary(_result(message, "the quick brown fox " * 20))
        return _streamed({"content-type": "application/msgpack", "content-encoding": MCP_DICTIONARY_CODING}, body)

    async def call_fine() -> str:
        client = httpx2.AsyncClient(transport=httpx2.MockTransport(_scripted(fine)))
        async with client, streamable_http_client("http://127.0.0.1:9/mcp", http_client=client) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            return (await session.call_tool("any", {})).content[0].text

    assert anyio.run(call_fine) == "the quick brown fox " * 20


def test_coded_streams_are_capped_and_a_cut_stream_gives_its_slot_back():
    from mcp_msgpack.server.content_coding import CompressionPolicy, end_coded_send

    policy = CompressionPolicy(replies=True, max_coded_streams=1)
    scope = {"type": "http", "method": "GET", "headers": [(b"accept-encoding", b"gzip")], "server": ("10.0.0.1", 80)}
    start = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]}

    async def open_stream() -> tuple[object, list[dict]]:
        event = {"type": "http.response.body", "body": b"event: message\ndata: {}\n\n", "more_body": True}
        return await _sent_through_coded_send(scope, policy, start, event)

    async def run() -> None:
        first, first_sent = await open_stream()
        second, second_sent = await open_stream()  # past the cap: goes uncoded
        assert (b"content-encoding", b"gzip") in first_sent[0]["headers"]
        assert all(name != b"content-encoding" for name, _ in second_sent[0]["headers"])
        assert second_sent[1]["body"] == b"event: message\ndata: {}\n\n"
        assert policy.coded_streams == 1
        end_coded_send(first)  # the client went away mid-stream
        end_coded_send(second)
        assert policy.coded_streams == 0

    anyio.run(run)


def _whole_reply_coding(policy, accept_encoding: str, body: bytes) -> tuple[str | None, bytes]:
    """The coding the server's coding layer picks for a one-body JSON reply of `body`, and the body decoded."""
    scope = {"type": "http", "method": "POST", "headers": [(b"accept-encoding", accept_encoding.encode())], "server": ("10.0.0.1", 80)}
    start = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
    _, sent = anyio.run(_sent_through_coded_send, scope, policy, start, {"type": "http.response.body", "body": body})
    coding = dict(sent[0]["headers"]).get(b"content-encoding")
    name = coding.decode() if coding else None
    return name, codings.decode(name, sent[1]["body"], 1 << 20) if name else sent[1]["body"]


def _prose(size: int) -> bytes:
    words = [b"file", b"directory", b"name", b"size", b"modified", b"content", b"type", b"text", b"path"]
    return b" ".join(b"%s-%d" % (words[i % len(words)], i % 97) for i in range(size))[:size]


@pytest.mark.parametrize("favor", ["bytes", "cpu"])
def test_favor_bytes_codes_replies_of_8_to_64_kib_in_br_and_cpu_keeps_the_order(favor):
    from mcp_msgpack.server.content_coding import CompressionPolicy

    policy = CompressionPolicy(replies=True, favor=favor)
    favored = "br" if favor == "bytes" else "zstd"
    cases = [
        ("zstd, br, gzip", 2000, "zstd"),
        ("zstd, br, gzip", 8 * 1024 - 1, "zstd"),
        ("zstd, br, gzip", 8 * 1024, favored),
        ("gzip, deflate, br, zstd", 40_000, favored),  # httpx2's own offer: the stock client gets it too
        ("zstd, br, gzip", 64 * 1024 - 1, favored),
        ("zstd, br, gzip", 64 * 1024, "zstd"),  # zstd 9 from 64 KiB either way
        ("zstd, gzip", 20_000, "zstd"),  # a client that does not take br: as before
        ("zstd, br;q=0.5, gzip", 20_000, "zstd"),  # the client's q-values still decide
    ]
    for accept, size, expected in cases:
        body = _prose(size)
        coding, plain = _whole_reply_coding(policy, accept, body)
        assert (coding, plain) == (expected, body), (accept, size)
    assert CompressionPolicy().favor == "bytes"


def test_favor_without_brotli_falls_back_to_the_codings_order(monkeypatch):
    from mcp_msgpack.server.content_coding import CompressionPolicy

    monkeypatch.setattr(codings, "CODINGS", ("zstd", "gzip"))
    policy = CompressionPolicy(replies=True)  # as in a Python without the `brotli` module
    assert policy.codings == ("zstd", "gzip")
    assert _whole_reply_coding(policy, "zstd, br, gzip", _prose(20_000))[0] == "zstd"


@pytest.mark.parametrize("favor", ["speed", "BYTES", None, 1])
def test_a_wrong_favor_is_a_clear_value_error(favor):
    from mcp_msgpack.server.content_coding import CompressionPolicy

    with pytest.raises(ValueError, match="compression favor must be 'bytes' or 'cpu'"):
        CompressionPolicy(favor=favor)
