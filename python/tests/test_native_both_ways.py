"""Issue 39 item 2: native bytes both ways for `mcp.Client` and `ClientSession`, over stdio and HTTP, the bytes
on the wire read back from a recording: the server's media to the client as bin (2026-07-28 per request, SPEC
8.1 rules 4-6; a session once confirmed, rules 1-3), and the client's media to the server as bin once the server
has confirmed (a sampling result in a session) or advertised it (rule 7)."""

from __future__ import annotations

import base64
import hashlib

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters

from http_peers import python_server, recording_client, write_image
from mcp_msgpack import stdio_client
from mcp_msgpack.client.streamable_http import streamable_http_client
from mcp_msgpack.shared.sdk_compat import types
from mcp_msgpack.wire import ReceiveLimits, decode_value
from servers.media_server import pattern
from wiretap import MEDIA_SERVER, PYTHON, TAP, has_bin, recorded

pytestmark = pytest.mark.timeout(180)

SIZE = 200_000


def _stdio(tmp_path) -> tuple[StdioServerParameters, str]:
    prefix = str(tmp_path / "wire")
    return StdioServerParameters(command=PYTHON, args=[TAP, prefix, "--", PYTHON, MEDIA_SERVER, "--spy-base64"]), prefix


def _bins(values) -> list[bytes]:
    found: list[bytes] = []

    def walk(value) -> None:
        if isinstance(value, bytes):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for value in values:
        walk(value)
    return found


async def _sampling(context, params) -> types.CreateMessageResult:
    image = types.ImageContent(type="image", data=base64.b64encode(pattern(SIZE)).decode(), mimeType="image/png")
    return types.CreateMessageResult(role="assistant", content=image, model="test")


@pytest.mark.parametrize("wire", ["auto", "msgpack"])
def test_mcp_client_over_stdio_on_2026_07_28_reads_bin(tmp_path, wire):
    """`mcp.Client` (2026-07-28, no initialize) on our stdio_client against our stdio_server: each request
    offers the extension on msgpack-v1 and the image comes back as bin, with no base64 made by the server."""
    params, prefix = _stdio(tmp_path)

    async def run():
        async with Client(stdio_client(params, wire=wire, native_bytes=True)) as client:
            before = int((await client.call_tool("base64_calls", {})).content[0].text)
            result = await client.call_tool("image_bytes", {"size": SIZE})
            after = int((await client.call_tool("base64_calls", {})).content[0].text)
        return result, after - before

    result, made = anyio.run(run)
    assert base64.b64decode(result.content[0].data) == pattern(SIZE) and made == 0
    out = [v for kind, v in recorded(prefix + ".out") if kind == "frame"]
    assert _bins(out) == [pattern(SIZE)]
    sent = [v for kind, v in recorded(prefix + ".in") if kind == "frame"]
    offers = [v for v in sent if "native-bytes" in repr(v.get("params", {}).get("_meta"))]
    assert offers, "no request offered the extension"
    # A server/discover went as a frame (on 'auto' our own, right after the switch): advertised (rule 6).
    discover = next(v for v in out if "supportedVersions" in v.get("result", {}))
    assert "io.github.mcp-msgpack/native-bytes" in discover["result"]["capabilities"]["extensions"]


async def _input_image(context, params) -> types.CreateMessageResult:
    return await _sampling(context, params)


@pytest.mark.parametrize("wire", ["auto", "msgpack"])
def test_mcp_client_over_stdio_on_2026_07_28_sends_bin_once_advertised(tmp_path, wire):
    """`mcp.Client` (2026-07-28) on our stdio_client, wire 'auto' as the default and 'msgpack': the tool asks
    for an image (`input_required`), and the retried request carries it as bin (SPEC 8.1 rule 7), the server
    reading the very bytes. On 'auto' the SDK's server/discover went as a JSON line, which carries no
    advertisement; the client learnt it from its own server/discover sent as a frame after the switch."""
    params, prefix = _stdio(tmp_path)

    async def run():
        async with Client(stdio_client(params, wire=wire, native_bytes=True), sampling_callback=_input_image) as client:
            return (await client.call_tool("input_image_digest", {})).content[0].text

    assert anyio.run(run) == hashlib.sha256(pattern(SIZE)).hexdigest()
    sent = [v for kind, v in recorded(prefix + ".in") if kind == "frame" and has_bin(v)]
    assert [v["params"]["inputResponses"]["image"]["content"]["data"] for v in sent] == [pattern(SIZE)]
    lines = [v for kind, v in recorded(prefix + ".in") if kind != "frame"]
    if wire == "auto":  # the SDK's discover offered the upgrade as a line; its answer as a line accepted it
        assert [v["method"] for v in lines] == ["server/discover"]
        own = [v for kind, v in recorded(prefix + ".in") if kind == "frame" and v.get("method") == "server/discover"]
        assert len(own) == 1 and "native-bytes" in repr(own[0]["params"]["_meta"])


def test_client_session_over_stdio_on_2026_07_28_sends_bin_once_advertised(tmp_path):
    """The same through `ClientSession` (what `mcp.Client` wraps), on the default wire: the client's own
    server/discover learns the advertisement, and the retried request's image goes as bin."""
    params, prefix = _stdio(tmp_path)

    async def run():
        async with Client(stdio_client(params, native_bytes=True), sampling_callback=_input_image) as client:
            session: ClientSession = client.session
            first = await session.call_tool("input_image_digest", {}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            answer = await _sampling(None, None)
            final = await session.call_tool(
                "input_image_digest", {}, input_responses={"image": answer}, allow_input_required=True
            )
            return final.content[0].text

    assert anyio.run(run) == hashlib.sha256(pattern(SIZE)).hexdigest()
    sent = [v for kind, v in recorded(prefix + ".in") if kind == "frame" and has_bin(v)]
    assert [v["params"]["inputResponses"]["image"]["content"]["data"] for v in sent] == [pattern(SIZE)]


def test_client_session_over_stdio_sends_bin_once_confirmed(tmp_path):
    """A sampling result from the client (its image) goes as bin once the session confirmed native bytes."""
    params, prefix = _stdio(tmp_path)

    async def run():
        async with stdio_client(params, native_bytes=True) as (read, write):
            async with ClientSession(read, write, sampling_callback=_sampling) as session:
                await session.initialize()
                return (await session.call_tool("sampled_image_digest", {})).content[0].text

    assert anyio.run(run) == hashlib.sha256(pattern(SIZE)).hexdigest()
    sent = [v for kind, v in recorded(prefix + ".in") if kind == "frame" and has_bin(v)]
    assert [v["result"]["content"]["data"] for v in sent] == [pattern(SIZE)]


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    with python_server(write_image(tmp_path_factory.mktemp("both-ways"))[0], "--spy-base64") as address:
        yield address


def test_client_session_over_http_sends_bin_once_confirmed(url):
    async def run():
        http, recorder = recording_client()
        async with http, streamable_http_client(url, native_bytes=True, http_client=http) as (r, w):
            async with ClientSession(r, w, sampling_callback=_sampling) as session:
                await session.initialize()
                digest = (await session.call_tool("sampled_image_digest", {})).content[0].text
        return digest, recorder

    digest, recorder = anyio.run(run)
    assert digest == hashlib.sha256(pattern(SIZE)).hexdigest()
    limits = ReceiveLimits(allow_bin=True, max_frame_bytes=1 << 26)
    posted = [
        decode_value(e["request_body"], limits) for e in recorder.exchanges
        if e["method"] == "POST" and e["request_type"] == "application/msgpack"
    ]
    answers = [v for v in posted if "result" in v and has_bin(v)]
    assert [v["result"]["content"]["data"] for v in answers] == [pattern(SIZE)]


def test_mcp_client_over_http_on_2026_07_28_reads_bin(url):
    """`mcp.Client` on our streamable_http_client (2026-07-28 per request): the image comes back as bin."""

    async def run():
        http, recorder = recording_client()
        async with http:
            async with Client(streamable_http_client(url, native_bytes=True, http_client=http)) as client:
                before = int((await client.call_tool("base64_calls", {})).content[0].text)
                result = await client.call_tool("read_image_native", {})
                after = int((await client.call_tool("base64_calls", {})).content[0].text)
        return result, after - before, recorder

    result, made, recorder = anyio.run(run)
    data = base64.b64decode(result.content[-1].data)
    assert made == 0
    call = next(e for e in recorder.exchanges if e["method"] == "POST" and b"read_image_native" in e["request_body"])
    assert data[:65536] in call["body"]


def test_the_stdio_client_sends_bin_in_a_2026_07_28_request_only_once_advertised():
    """Rule 7 on our stdio client: a request's `inputResponses` image goes as bin once a server/discover result
    read as a frame advertised the extension; before that, and for a server that did not, as base64."""
    from mcp.shared.message import SessionMessage

    from mcp_msgpack.client.stdio import _ClientWire
    from mcp_msgpack.shared.extension import announce
    from mcp_msgpack.shared.http_negotiation import CLIENT_CAPABILITIES_META, PROTOCOL_VERSION_META
    from mcp_msgpack.wire import FRAME

    image = pattern(1000)
    meta = {PROTOCOL_VERSION_META: "2026-07-28", CLIENT_CAPABILITIES_META: {}}
    answer = {"role": "assistant", "model": "m", "content": {"type": "image", "mimeType": "image/png",
                                                              "data": base64.b64encode(image).decode()}}

    def retry(state, request_id: int):
        params = {"name": "t", "arguments": {}, "_meta": dict(meta), "inputResponses": {"s1": answer}}
        written = state.outgoing(types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params=params))
        return decode_value(written[4:], ReceiveLimits(allow_bin=True))["params"]["inputResponses"]["s1"]["content"]["data"]

    for advertised in (True, False):
        state = _ClientWire("msgpack", True)
        assert retry(state, 1) == answer["content"]["data"]  # nothing advertised yet: base64
        state.outgoing(types.JSONRPCRequest(jsonrpc="2.0", id=2, method="server/discover", params={"_meta": dict(meta)}))
        result = {"supportedVersions": ["2026-07-28"], "capabilities": announce({}) if advertised else {}}
        state.incoming(SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=2, result=result)), FRAME)
        assert retry(state, 3) == (image if advertised else answer["content"]["data"])


def test_the_stdio_server_accepts_bin_only_in_a_request_that_offers():
    """Rule 7 on our stdio server: bin at a media field of a 2026-07-28 request that offers the extension is
    read (the SDK gets base64); the same request without the offer is refused as forbidden-type (8.3)."""
    from mcp.shared.message import SessionMessage

    from mcp_msgpack.server.stdio import _ServerWire
    from mcp_msgpack.shared.extension import announce
    from mcp_msgpack.shared.http_negotiation import CLIENT_CAPABILITIES_META, PROTOCOL_VERSION_META
    from mcp_msgpack.wire import FRAME, WireError, encode_payload

    image = pattern(1000)

    def request(offers: bool) -> bytes:
        meta = {PROTOCOL_VERSION_META: "2026-07-28", CLIENT_CAPABILITIES_META: announce({}) if offers else {}}
        content = {"type": "image", "mimeType": "image/png", "data": image}
        params = {"name": "t", "arguments": {}, "_meta": meta,
                  "inputResponses": {"s1": {"role": "assistant", "model": "m", "content": content}}}
        return encode_payload({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params})

    state = _ServerWire("msgpack", True)
    state.on_frames()
    read = state.read(FRAME, request(True))
    assert isinstance(read.deliver, SessionMessage) and read.reply is None
    params = read.deliver.message.params if hasattr(read.deliver.message, "params") else read.deliver.message.root.params
    assert base64.b64decode(params["inputResponses"]["s1"]["content"]["data"]) == image
    refused = state.read(FRAME, request(False))
    assert isinstance(refused.deliver, WireError) and refused.deliver.code == "forbidden-type"
    assert decode_value(refused.reply[4:])["error"]["data"] == {"reason": "forbidden-type"}
