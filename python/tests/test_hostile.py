"""Hostile input: refused requests answered by id and the connection kept (SPEC 5.2), a bounded amplification
(no hostile payload builds more than 16x its size in this process, traced by tracemalloc)."""

from __future__ import annotations

import gc
import subprocess
import tracemalloc

import pytest
from hostile import ALL, payload
from fixtures import payload_bytes, sources
from wiretap import MEDIA_SERVER, PYTHON

from mcp_msgpack.wire import FrameReader, WireError, decode_payload, encode_frame, frame_payload
from mcp_msgpack.wire.decode import build
from mcp_msgpack.wire.jsonrpc import check_message
from mcp_msgpack.wire.guard import guard_payload

MIB = 1024 * 1024


def _largest_accepted(shape: str, size: int) -> int:
    """About the most units the guard accepts in a payload of about `size` bytes (binary search, to 1/64)."""
    unit = len(payload(shape, 1, 0)) - len(payload(shape, 0, 0))
    low, high = 0, size // unit
    for _ in range(5):
        mid = (low + high + 1) // 2
        try:
            guard_payload(payload(shape, mid, size))
            low = mid
        except WireError:
            high = mid - 1
    return low


def _peak(data: bytes, trace_guard: bool = False) -> tuple[float, bool]:
    """Peak traced memory of receiving `data`, against its size: the build (what decode_payload builds once
    the guard passed) always, the guard itself (which builds nothing but its key tables) when asked, as
    tracing its per-byte temporaries is slow. Returns (the larger peak / size, accepted)."""
    gc.collect()
    guard_peak = 0
    if trace_guard:
        tracemalloc.start()
    try:
        result = guard_payload(data)
    except WireError:
        result = None
    if trace_guard:
        guard_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if result is None:
        return guard_peak / len(data), False
    gc.collect()
    tracemalloc.start()
    value = check_message(build(data, result.big_ints))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del value
    return max(peak, guard_peak) / len(data), True


def test_the_guard_itself_holds_little_on_key_heavy_payloads():
    for shape in ("uniqmap", "keyorders"):
        ratio, _ = _peak(payload(shape, _largest_accepted(shape, MIB), MIB), trace_guard=True)
        assert ratio <= 16, (shape, ratio)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("size,shapes", [(1 * MIB, ALL), (4 * MIB, ["nil", "negint", "map1", "mixed"])])
def test_no_hostile_shape_builds_more_than_16x_its_size(size, shapes):
    """Each shape at the edge of what the receiver accepts (then a filler string) and at full density."""
    worst = {}
    for shape in shapes:
        edge = payload(shape, _largest_accepted(shape, size), size)
        over = payload(shape, size // max(1, len(payload(shape, 1, 0)) - len(payload(shape, 0, 0))), size)
        worst[shape] = (_peak(edge), _peak(over))
    report = {shape: (round(e[0], 1), round(o[0], 1), o[1]) for shape, (e, o) in worst.items()}
    assert all(e[0] <= 16 and o[0] <= 16 for e, o in worst.values()), report
    # At full density the dense shapes are refused (the budget's point); those accepted (nil, one word a byte;
    # floats; 3-byte ints, 40 bytes each in CPython, 13x) are within the bound above.
    assert {shape for shape, (_, o) in worst.items() if o[1]} <= {"nil", "float", "int16"}, report


def test_depth_and_entries_are_refused_before_anything_is_built():
    nested = b"\xdc\xff\xff" * 2000  # 2,000 nested array 16 headers claiming 65,535 items each: 6 KB
    with pytest.raises(WireError) as error:
        decode_payload(nested)
    assert error.value.code == "malformed-msgpack" and error.value.rule == "4.1.7"


def test_refusal_keeps_the_id_for_an_answer():
    message = {"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"x": b"\x00"}}
    with pytest.raises(WireError) as error:
        decode_payload(encode_frame(message)[4:])
    assert (error.value.code, error.value.request_id, error.value.kind) == ("forbidden-type", 41, "request")
    message = {"jsonrpc": "2.0", "id": "r-1", "result": {"v": 1.5}}
    bad = bytearray(encode_frame(message)[4:])
    assert bad[-9:] == b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00"
    bad[-9:] = b"\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00"  # +Infinity
    with pytest.raises(WireError) as error:
        decode_payload(bytes(bad))
    assert (error.value.code, error.value.request_id, error.value.kind) == ("non-finite-number", "r-1", "response")


class _RawPeer:
    """Our Python server over real pipes, spoken to in raw frames."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([PYTHON, MEDIA_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.reader = FrameReader()
        self.pending: list[bytes] = []

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self) -> object:
        import os

        while not self.pending:
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            assert chunk, "the server closed the connection"
            self.pending.extend(self.reader.feed(chunk))
        return decode_payload(self.pending.pop(0))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=20)


def _next_answer(peer: "_RawPeer") -> dict:
    """The next message that is not a log notification: SDK 1.x's server logs every exception the transport
    reports to it ("Internal Server Error", `notifications/message`) to the client; 2.x's does not."""
    while True:
        message = peer.receive()
        if message.get("method") != "notifications/message":
            return message


def test_every_refused_fixture_is_answered_by_id_and_the_connection_goes_on():
    peer = _RawPeer()
    try:
        peer.send(encode_frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
        assert peer.receive()["id"] == 0
        peer.send(encode_frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for number, (name, source, _) in enumerate(sources("refuse"), start=100):
            data = payload_bytes(source)
            peer.send(frame_payload(data))
            peer.send(encode_frame({"jsonrpc": "2.0", "id": number, "method": "ping"}))
            answer = _next_answer(peer)
            try:
                decode_payload(data)
            except WireError as error:
                expected = error
            if expected.has_id and expected.kind == "request":
                # Answered by id (SPEC 5.2): -32700 for a payload not decoded, -32600 for one not JSON-RPC.
                assert answer["id"] == expected.request_id, name
                # (The allowBin fixtures are refused here as bin not negotiated: forbidden-type.)
                assert answer["error"]["code"] == (-32600 if expected.code == "not-json-rpc" else -32700), name
                assert answer["error"]["data"] == {"reason": expected.code}, name
                answer = _next_answer(peer)
            assert answer == {"jsonrpc": "2.0", "id": number, "result": {}}, name
    finally:
        peer.close()


def test_a_client_that_dies_mid_frame_leaves_the_server_exiting_cleanly():
    peer = _RawPeer()
    frame = encode_frame({"jsonrpc": "2.0", "id": 0, "method": "ping"})
    peer.send(frame + frame[:7])
    assert peer.receive() == {"jsonrpc": "2.0", "id": 0, "result": {}}
    peer.process.stdin.close()
    assert peer.process.wait(timeout=20) is not None


def test_a_server_dying_mid_frame_fails_the_pending_request_at_once():
    """SPEC 5.1: the stream ends inside a frame: truncated-frame, and the pending request fails, no hang."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters
    from wiretap import HERE

    from mcp_msgpack import stdio_client

    params = StdioServerParameters(command=PYTHON, args=[str(HERE / "servers" / "dying_server.py")])
    seen: list[object] = []

    async def run():
        with anyio.fail_after(30):
            async with stdio_client(params) as (read, write):

                async def on_message(message):
                    seen.append(message)

                async with ClientSession(read, write, message_handler=on_message) as session:
                    await session.initialize()
                    with pytest.raises(Exception) as failed:
                        await session.list_tools()
                    return failed.value

    failure = anyio.run(run)
    assert "closed" in str(failure).lower() or "connection" in str(failure).lower(), failure
    assert any(isinstance(m, WireError) and m.code == "truncated-frame" for m in seen), seen
