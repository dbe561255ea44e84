"""Hostile payload shapes (the TypeScript measure's shapes, packages/bench/stress/hostile-payloads.mjs, written again for
Python): a request whose params.junk is an array of `count` units, then a filler string to reach a size."""

from __future__ import annotations

HEAD = bytes.fromhex("84a76a736f6e727063a3322e30a2696401a66d6574686f64a16da6706172616d7382a46a756e6b")

SHAPES: dict[str, object] = {
    "nil": b"\xc0",
    "negint": b"\xe0",  # -32: an int object each in CPython
    "int16": b"\xcd\x01\x2c",
    "float": b"\xcb\x3f\xf1\x99\x99\x99\x99\x99\x9a",
    "str2": b"\xa2ab",
    "emptymap": b"\x80",
    "emptyarr": b"\x90",
    "map1": b"\x81\xa1x\xc0",
    "pairs": b"\x92\xcd\x01\x2c\xcd\x01\x2d",
    "mixed": b"\x80\xa2ab\xc0",
    "bigmap": b"\x85\xa1a\xe0\xa1b\xe1\xa1c\xe2\xa1d\xe3\xa1e\xe4",  # 5-entry maps of uncached ints
}


def _unit(shape: str, i: int) -> bytes:
    if shape == "uniqmap":
        return b"\x81\xa4" + format(i, "04x").encode() + b"\xc0"  # fresh 4-byte keys
    if shape == "keyorders":
        a, b = i % 97, (i // 97) % 97
        return b"\x82\xa3x" + format(a, "02d").encode() + b"\xc0\xa3y" + format(b, "02d").encode() + b"\xc0"
    return SHAPES[shape]  # type: ignore[return-value]


ALL = [*SHAPES, "uniqmap", "keyorders"]


def payload(shape: str, count: int, size: int) -> bytes:
    """HEAD, junk = [count units], filler = one string making the payload about `size` bytes."""
    body = b"".join(_unit(shape, i) for i in range(count)) if shape in ("uniqmap", "keyorders") else _unit(shape, 0) * count
    head = HEAD + b"\xdd" + count.to_bytes(4, "big") + body + b"\xa6filler"
    rest = max(0, size - len(head) - 5)
    return head + b"\xdb" + rest.to_bytes(4, "big") + b"x" * rest
