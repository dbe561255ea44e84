"""Whether a MessagePack reply body is mostly native bytes (SPEC 8: images, audio, compressed already), so coding it
would spend CPU for nothing (SPEC 10.2 rule 3; the TS side's bin-heavy.ts, which knows its encoder's pieces).

Here the body is bytes, and walking its MessagePack value in Python would cost about what coding it does. So the
check looks for the large bins themselves, at C speed: SPEC 8.2 lets a bin stand only at a media field, `data` or
`blob`, so each key `data`/`blob` (fixstr) followed by a `bin 16` or `bin 32` marker is found by `bytes.find`,
and counts when its declared length of BIN_BY_REFERENCE or more fits in the body; the search goes on after it.
Text could hold those bytes only as a key-like run glued to a UTF-8 lead byte: then the body goes uncoded, which
costs bytes, never correctness; a bin that is missed is coded, and sent uncoded anyway when coding did not shrink
it by an eighth."""

from __future__ import annotations

BIN_BY_REFERENCE = 32 * 1024
"""The smallest bin counted: media below it are small beside the message around them (the TS encoder's cut)."""


_MARKERS = tuple(key + marker for key in (b"\xa4data", b"\xa4blob") for marker in (b"\xc5", b"\xc6"))


def _next_bin(body: bytes, start: int) -> tuple[int, int] | None:
    """The position and length of the next large bin at a media field from `start`, or None."""
    size = len(body)
    position = start
    while True:
        found = [at for at in (body.find(marker, position) for marker in _MARKERS) if at >= 0]
        if not found:
            return None
        at = min(found) + 5  # the bin's marker, after the 5-byte key
        width = 2 if body[at] == 0xC5 else 4
        length = int.from_bytes(body[at + 1 : at + 1 + width], "big")
        if length >= BIN_BY_REFERENCE and at + 1 + width + length <= size:
            return at + 1 + width, length
        position = at + 1


def mostly_native_bytes(body: bytes) -> bool:
    """Whether large bins make up more than half of `body`'s bytes."""
    if len(body) < 2 * BIN_BY_REFERENCE:
        return False
    bins = 0
    position = 0
    while (found := _next_bin(body, position)) is not None:
        start, length = found
        bins += length
        if bins * 2 > len(body):
            return True
        position = start + length
    return False
