"""What SPEC 4.1.9 says every receiver MUST accept however it bounds its runtime's heap, held against this
receiver's CPython bound (`ReceiveLimits.heap_bound`: the larger of 3 MiB and 12 N): every payload within the
default budget of at most 32,768 bytes, and every payload whose bytes are at least 15/16 strs of 16 bytes or
more and bins. Each is built from the densest units this receiver's estimate knows (96 bytes a payload byte at
most), so a looser estimate would not make these pass by accident."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcp_msgpack.wire import decode_payload
from mcp_msgpack.wire.guard import guard_payload
from mcp_msgpack.wire.limits import BIN_LIMITS, DEFAULT_LIMITS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile import SHAPES, payload  # noqa: E402

FLOOR = 32_768
# A result {"a": [units...], "b": str}: the array 32 header's count filled in by `_result`.
_HEAD = bytes.fromhex("83a76a736f6e727063a3322e30a2696401a6726573756c7482a161dd")
# The densest units per payload byte of the estimate: one-key maps nested around an empty map (92 a byte),
# then the hostile shapes of the TS measure.
DENSE = {
    "nested-maps": b"\x81\xa0" * 4 + b"\x80",
    "map-of-map": b"\x81\xa0\x80",
    **{name: unit for name, unit in SHAPES.items() if name != "mixed"},  # type: ignore[misc]  # mixed: 3 values a unit
}


def _result(unit: bytes, size: int) -> bytes:
    """A response whose result.a is an array of as many `unit`s as fit in `size` bytes, and result.b a str
    padding it to exactly `size`."""
    fixed = len(_HEAD) + 4 + 2 + 2  # header, count, the key "b", a str 8 header
    count = (size - fixed) // len(unit)
    pad = size - fixed - count * len(unit)
    data = _HEAD + count.to_bytes(4, "big") + unit * count + b"\xa1b\xd9" + bytes([pad]) + b"x" * pad
    assert len(data) == size
    return data


@pytest.mark.parametrize("name", sorted(DENSE))
def test_every_payload_of_at_most_32_kib_within_the_default_budget_is_accepted(name):
    data = _result(DENSE[name], FLOOR)
    decode_payload(data)  # raises on a refusal


def test_the_hostile_shapes_at_the_floor_are_accepted():
    for shape in DENSE.keys() & SHAPES.keys():
        data = payload(shape, (FLOOR - 200) // len(SHAPES[shape]), FLOOR)  # type: ignore[arg-type]
        assert len(data) <= FLOOR
        guard_payload(data, DEFAULT_LIMITS)


@pytest.mark.parametrize("size", [1 << 20, 4 << 20])
@pytest.mark.parametrize("name", ["nested-maps", "negint", "map1", "str2"])
def test_a_payload_15_16_long_strs_is_accepted_whatever_the_rest(name, size):
    # 1/16 of the bytes the densest units, the rest 16-byte strs (the dearest long str per byte).
    dense = DENSE[name] * (size // 16 // len(DENSE[name]))
    texts = (b"\xb0" + b"t" * 16) * ((size - len(dense) - 64) // 17)
    count = size // 16 // len(DENSE[name])
    body = b"\x92\xdd" + count.to_bytes(4, "big") + dense + b"\xdd" + (len(texts) // 17).to_bytes(4, "big") + texts
    data = _HEAD[:-4] + b"\x81\xa1a" + body  # {"jsonrpc", "id", "result": {"a": [[dense...], [texts...]]}}
    data = data.replace(b"\xa6result\x82", b"\xa6result\x81", 1)
    assert len(texts) + 1 >= len(data) * 15 // 16 - 64
    guard_payload(data, DEFAULT_LIMITS)


def test_bins_count_with_long_strs():
    # An image block's data as bin: 15/16 of the bytes a bin, the rest one-entry maps (densest of MCP's shapes).
    size = 1 << 20
    image = b"\xc6" + (size * 15 // 16).to_bytes(4, "big") + b"\x01" * (size * 15 // 16)
    block = b"\x83\xa4type\xa5image\xa8mimeType\xa9image/png\xa4data" + image
    maps = DENSE["map1"] * (size // 16 // 4)
    data = (
        bytes.fromhex("83a76a736f6e727063a3322e30a2696401a6726573756c74")
        + b"\x82\xa7content\x91" + block + b"\xa1a\xdd" + (size // 16 // 4).to_bytes(4, "big") + maps
    )
    guard_payload(data, BIN_LIMITS)
