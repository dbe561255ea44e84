"""Issue 39 item 1: on the MessagePack path no base64 is made or read for `native_image`. Its bytes are held
beside the SDK's models and written as bin (the server process's base64 encoders and decoders are counted,
tests/servers/base64_spy.py); every other client still gets the standard base64; a held token that is no
longer held fails its reply loudly; what a reply held goes when it is written, dropped or cancelled."""

from __future__ import annotations

import base64

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client

from http_peers import python_server, recording_client, write_image
from mcp_msgpack import call_tool_native, stdio_client
from mcp_msgpack.client.streamable_http import streamable_http_client
from mcp_msgpack.server.stdio import _ServerWire
from mcp_msgpack.shared.held_media import TOKEN_PREFIX, HeldMedia, HeldMediaGone, held_count
from mcp_msgpack.shared.sdk_compat import types
from mcp_msgpack.wire import decode_value
from wiretap import MEDIA_SERVER, PYTHON, TAP, has_bin, recorded

pytestmark = pytest.mark.timeout(180)

SIZE = 300_000


def pattern(size: int) -> bytes:
    from servers.media_server import pattern as server_pattern

    return server_pattern(size)


async def _base64_calls(session: ClientSession) -> int:
    return int((await session.call_tool("base64_calls", {})).content[0].text)


async def _counted_call(session: ClientSession, tool: str, arguments: dict, *, native_call: bool = False):
    """The tool's result and how many base64 calls the server made for it."""
    before = await _base64_calls(session)
    call = call_tool_native if native_call else ClientSession.call_tool
    result = await call(session, tool, arguments)
    return result, await _base64_calls(session) - before


# --- stdio ---------------------------------------------------------------------------------------------------


def _stdio_params(tmp_path, *server_args: str) -> tuple[StdioServerParameters, str]:
    prefix = str(tmp_path / "wire")
    args = [TAP, prefix, "--", PYTHON, MEDIA_SERVER, "--spy-base64", *server_args]
    return StdioServerParameters(command=PYTHON, args=args), prefix


@pytest.mark.parametrize("wire", ["auto", "msgpack"])
def test_stdio_native_image_makes_no_base64(tmp_path, wire):
    params, prefix = _stdio_params(tmp_path)

    async def run():
        async with stdio_client(params, wire=wire, native_bytes=True) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                as_bytes, made = await _counted_call(session, "image_bytes", {"size": SIZE}, native_call=True)
                plain, made_plain = await _counted_call(session, "image_bytes", {"size": SIZE})
                return as_bytes.content[0].data, made, plain.content[0].data, made_plain

    as_bytes, made, plain, made_plain = anyio.run(run)
    assert as_bytes == pattern(SIZE) and made == 0
    # The SDK's models on our client: the client makes the base64 from the bin it read; the server made none.
    assert base64.b64decode(plain) == pattern(SIZE) and made_plain == 0
    images = [v for kind, v in recorded(prefix + ".out") if kind == "frame" and has_bin(v)]
    assert [v["result"]["content"][0]["data"] for v in images] == [pattern(SIZE)] * 2


@pytest.mark.parametrize("server_args", [(), ("--sdk",)], ids=["ours", "sdk-transport"])
@pytest.mark.parametrize("client", ["sdk", "ours-json", "ours-no-native"])
def test_stdio_other_clients_get_base64(tmp_path, server_args, client):
    params, prefix = _stdio_params(tmp_path, *server_args)
    transport = {
        "sdk": lambda: sdk_stdio_client(params),
        "ours-json": lambda: stdio_client(params, wire="json", native_bytes=True),
        "ours-no-native": lambda: stdio_client(params, native_bytes=False),
    }[client]()

    async def run():
        async with transport as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return (await session.call_tool("image_bytes", {"size": SIZE})).content[0].data

    assert base64.b64decode(anyio.run(run), validate=True) == pattern(SIZE)
    assert not any(has_bin(v) for kind, v in recorded(prefix + ".out") if kind == "frame")
    assert TOKEN_PREFIX.encode() not in open(prefix + ".out", "rb").read()


def test_a_stale_held_token_fails_its_reply_loudly():
    """A reply whose held media are gone is an error for its request, never a success without its media."""
    state = _ServerWire("msgpack", True)
    state.on_frames()
    state.native_send = state.native_receive = True
    hold = state.held.open(7)
    token = hold.hold(b"\x89PNG")
    state.held.release(7)
    result = {"content": [{"type": "image", "mimeType": "image/png", "data": token}]}
    written = state.outgoing(types.JSONRPCResponse(jsonrpc="2.0", id=7, result=result))
    reply = decode_value(written[4:])
    assert reply["id"] == 7 and reply["error"]["code"] == -32603 and "result" not in reply


def test_held_media_are_released_and_counted():
    media = HeldMedia()
    before = held_count()
    hold = media.open("a")
    token = hold.hold(b"x" * 10)
    assert media.take(token) == b"x" * 10 and held_count() == before + 1
    media.release("a")
    assert held_count() == before and len(media) == 0
    with pytest.raises(HeldMediaGone):
        media.take(token)
    with pytest.raises(HeldMediaGone):
        hold.hold(b"late")  # a tool finishing after its reply was dropped holds nothing


# --- Streamable HTTP -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("held-media"))


@pytest.fixture(scope="module", params=[(), ("--json-response",)], ids=["held", "json-response"])
def url(image, request):
    with python_server(image[0], "--spy-base64", *request.param) as address:
        yield address


@pytest.mark.parametrize("tool", ["read_image_native", "read_image_native_later"], ids=["one-body", "stream"])
def test_http_native_image_makes_no_base64(url, image, tool):
    _, data = image

    async def run():
        http, recorder = recording_client()
        async with http, streamable_http_client(url, native_bytes=True, http_client=http) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                as_bytes, made = await _counted_call(session, tool, {}, native_call=True)
                plain, made_plain = await _counted_call(session, tool, {})
        return as_bytes, made, plain, made_plain, recorder

    as_bytes, made, plain, made_plain, recorder = anyio.run(run)
    assert as_bytes.content[-1].data == data and made == 0
    assert base64.b64decode(plain.content[-1].data) == data and made_plain == 0
    bodies = [e["body"] for e in recorder.exchanges if e["method"] == "POST" and tool.encode() in e["request_body"]]
    assert len(bodies) == 2 and all(data[:65536] in body for body in bodies)
    assert not any(TOKEN_PREFIX.encode() in e["body"] for e in recorder.exchanges)


def test_http_json_clients_get_base64_made_by_the_tool(url, image):
    """The control of the counts above: for a JSON reply `native_image` makes the base64 (counted), and the
    client reads the file's bytes from it."""
    _, data = image

    async def run():
        http, _ = recording_client()
        async with http, streamable_http_client(url, wire="json", http_client=http) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                return await _counted_call(session, "read_image_native", {})

    result, made = anyio.run(run)
    assert base64.b64decode(result.content[-1].data, validate=True) == data and made >= 1


def test_a_held_block_in_a_message_without_bin_goes_as_base64():
    """A handler that puts its held block in a message no native-bytes rule covers (here: a frame on a
    connection without the extension in force, and a JSON line) sends the bytes' base64, never the token."""
    for on_frames in (True, False):
        state = _ServerWire("auto", True)
        if on_frames:
            state.on_frames()
        token = state.held.open(3).hold(b"\x89PNG held")
        params = {"messages": [{"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": token}}], "maxTokens": 1}
        written = state.outgoing(types.JSONRPCRequest(jsonrpc="2.0", id=9, method="sampling/createMessage", params=params))
        sent = decode_value(written[4:]) if on_frames else __import__("json").loads(written)
        assert sent["params"]["messages"][0]["content"]["data"] == base64.b64encode(b"\x89PNG held").decode()
