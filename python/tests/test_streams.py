"""The mixed stdio streams of fixtures/streams (SPEC 7.4) cut at every byte boundary, and framing faults."""

from __future__ import annotations

import json
import random
import struct

import pytest
from fixtures import FIXTURES, expand, read_source

from mcp_msgpack.wire import FRAME, LINE, FrameReader, StreamReader, WireError, decode_payload, encode_frame, frame_payload
from mcp_msgpack.wire.reader import DETECT, JSON, MIXED

STREAMS = ["mixed-client-to-server", "mixed-server-to-client"]


def _expected(name: str) -> list[tuple[str, object]]:
    source = read_source(FIXTURES / "streams" / f"{name}.json")
    return [(part["as"], expand(part["message"])) for part in source["parts"] if part["as"] != "blank"]


def _read(name: str, chunks: list[bytes]) -> list[tuple[str, object]]:
    # Each side starts on JSON lines and switches to the mixed stream after the first line that carries the
    # upgrade (the offer read by the server, the acceptance read by the client), as SPEC 7.1 places it.
    reader = StreamReader(DETECT if name.endswith("to-server") else JSON)
    out = []
    for chunk in chunks:
        reader.feed(chunk)
        while (message := reader.next()) is not None:
            kind, data = message
            value = json.loads(data) if kind == LINE else decode_payload(data)
            meta = (value.get("params") or value.get("result") or {}).get("_meta", {})
            if "mcp-msgpack/wire" in meta:
                reader.mode = MIXED
            out.append(("line" if kind == LINE else "frame", value))
    reader.close()
    return out


@pytest.mark.parametrize("name", STREAMS)
def test_stream_cut_at_every_byte_boundary(name):
    data = (FIXTURES / "streams" / f"{name}.stream").read_bytes()
    expected = _expected(name)
    for cut in range(len(data) + 1):
        assert _read(name, [data[:cut], data[cut:]]) == expected, cut


@pytest.mark.parametrize("name", STREAMS)
def test_stream_byte_by_byte_and_random_chunks(name):
    data = (FIXTURES / "streams" / f"{name}.stream").read_bytes()
    expected = _expected(name)
    assert _read(name, [data[i : i + 1] for i in range(len(data))]) == expected
    rng = random.Random(7)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 12)))
        chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
        assert _read(name, chunks) == expected


@pytest.mark.parametrize("name", STREAMS)
def test_stream_cut_short_is_truncated(name):
    data = (FIXTURES / "streams" / f"{name}.stream").read_bytes()
    with pytest.raises(WireError) as error:
        _read(name, [data[:-1]])
    assert error.value.code == "truncated-frame"


def test_frame_reader_splits_frames_at_every_cut():
    frames = [encode_frame({"jsonrpc": "2.0", "id": i, "result": {"t": "x\n{" * i}}) for i in range(5)]
    data = b"".join(frames)
    for cut in range(len(data) + 1):
        reader = FrameReader()
        payloads = reader.feed(data[:cut]) + reader.feed(data[cut:])
        reader.close()
        assert payloads == [f[4:] for f in frames]


@pytest.mark.parametrize("cut", [1, 3, 4, 10])
def test_a_peer_dying_mid_frame_is_truncated_frame(cut):
    frame = encode_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    reader = FrameReader()
    assert reader.feed(frame + frame[:cut]) == [frame[4:]]
    with pytest.raises(WireError) as error:
        reader.close()
    assert (error.value.code, error.value.framing) == ("truncated-frame", True)


def test_a_header_over_the_cap_is_refused_before_its_payload():
    reader = FrameReader(max_frame_bytes=1024)
    with pytest.raises(WireError) as error:
        reader.feed(struct.pack(">I", 1025))
    assert error.value.code == "frame-too-large"
    # The default cap is 64 MiB: a 4-byte header announcing 4 GiB allocates nothing.
    with pytest.raises(WireError):
        FrameReader().feed(b"\xff\xff\xff\xff")


def test_an_empty_frame_is_a_payload_error_not_a_framing_error():
    (payload,) = FrameReader().feed(b"\x00\x00\x00\x00")
    with pytest.raises(WireError) as error:
        decode_payload(payload)
    assert (error.value.code, error.value.framing) == ("empty-payload", False)


def test_a_line_over_the_cap_is_line_too_long():
    reader = StreamReader(JSON, max_bytes=100)
    reader.feed(b"{" + b" " * 100)
    with pytest.raises(WireError) as error:
        reader.next()
    assert error.value.code == "line-too-long"


def test_detect_reads_frames_when_the_first_byte_is_not_json():
    reader = StreamReader(DETECT)
    frame = encode_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    reader.feed(frame + frame)
    assert [reader.next(), reader.next(), reader.next()] == [(FRAME, frame[4:]), (FRAME, frame[4:]), None]
    assert reader.mode == "frames"


def test_a_large_frame_leaves_the_buffer_at_once_and_what_follows_it_is_kept():
    # A 1 MiB frame is cut out of the buffer when read (so it is not held twice while decoded); the frame after
    # it in the same read, and half of a third, are read on as before.
    large, small, third = b"\x01" * (1 << 20), b"\x80", b"\x81\xa1a\xc0"

    reader = StreamReader()
    reader.feed(frame_payload(large) + frame_payload(small) + frame_payload(third)[:3])
    assert reader.next() == (FRAME, large)
    assert len(reader._buf) == len(frame_payload(small)) + 3  # the large frame's bytes are gone from the buffer
    assert reader.next() == (FRAME, small)
    assert reader.next() is None
    reader.feed(frame_payload(third)[3:])
    assert reader.next() == (FRAME, third)
    assert reader.pending == 0
