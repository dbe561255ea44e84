"""SPEC 4.1.9's word prices at the default budget, the same edges as the TypeScript guard's test
(packages/transport-msgpack/test/guard.test.ts, "pins the prices at the default budget"): the most image
blocks and short strings a payload may hold, and one more. An array is 8 words (its slot and object), then
per item: an image block {type: "image", data: <1-byte bin>} (20 bytes) 63 words (the map 8, "image" 7, the
bin 48), a 2- or 3-letter string 7, against 262,144 + N words. With this receiver's CPython heap bound lifted
(SPEC-NOTES.md 1: by default it refuses dense short strings before SPEC's words do), so that SPEC's words
decide."""

from __future__ import annotations

import struct

import pytest

from mcp_msgpack.wire import ReceiveLimits, WireError, decode_value, guard_payload

IMAGE_BLOCK = bytes([0x82, 0xA4]) + b"type" + bytes([0xA5]) + b"image" + bytes([0xA4]) + b"data" + bytes([0xC4, 0x01, 0x00])
# SPEC's budget alone: the CPython heap estimate (heap_base + heap_per_byte * N) out of the way. Image blocks
# are at SPEC's edge with this receiver's defaults too.
SPEC_ONLY = ReceiveLimits(heap_base=1 << 40)
BIN = ReceiveLimits(allow_bin=True)


def array_of(unit: bytes, count: int) -> bytes:
    return b"\xdd" + struct.pack(">I", count) + unit * count


@pytest.mark.parametrize(
    ("unit", "most", "limits"),
    [(IMAGE_BLOCK, 6_096, BIN), (b"\xa2ab", 65_535, SPEC_ONLY), (b"\xa3abc", 87_380, SPEC_ONLY)],
    ids=["image-blocks", "2-letter-strings", "3-letter-strings"],
)
def test_the_most_a_payload_may_hold_and_one_more(unit: bytes, most: int, limits: ReceiveLimits) -> None:
    assert len(decode_value(array_of(unit, most), limits)) == most
    with pytest.raises(WireError) as error:
        guard_payload(array_of(unit, most + 1), limits)
    assert (error.value.code, error.value.rule) == ("over-budget", "4.1.9")
    assert "words of built values" in str(error.value)


def test_the_image_block_edge_is_the_word_allowance():
    # 6,097 blocks: 8 + 63 x 6,097 = 384,119 words in 121,945 bytes, over 262,144 + 121,945 = 384,089.
    with pytest.raises(WireError) as error:
        guard_payload(array_of(IMAGE_BLOCK, 6_097), BIN)
    assert "more than 384089 words" in str(error.value)
