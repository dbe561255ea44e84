"""Which encoding a one-body reply goes in (SPEC 9.6), the server's `encoding` option, calibrated for CPython.

- `'cheapest-cpu'` (default): whichever costs this server less CPU for the reply's shape, when the client
  reads either (`replies=any`); a reply whose media go as bin (native bytes), or that confirms or advertises
  the extension, always MessagePack (rule 4).
- `'smallest'`: MessagePack always (the fewest bytes).
- `'json'`: JSON always, when the client reads it; media as base64, and native bytes never confirmed.

Without `replies=any` a MessagePack-preferring client always gets MessagePack (rule 3).

Calibration (`python python/bench/measure_codec.py --policy`; figures in the README): the SDK dumps JSON in
Rust (`model_dump_json`), while MessagePack needs the plain values dumped first and the canonical encoder's
Python pass, so MessagePack costs the server more for every shape but long strings: 4-21x on small
messages, records, short strings and numbers, and below JSON only from about 4,096 characters of string
(0.8x at 4 KB, 0.3x at 16 KB, 0.2x at 64 KB). A Python client's guarded decoder breaks even later (about
16 KB), a TypeScript client's much earlier, so the threshold sits between the two.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from ..wire.media_slots import media_slots

LONG_STRING_CHARS = 8192
"""A reply with a string this long goes as MessagePack under 'cheapest-cpu' (see the module's docstring)."""

WALK_LIMIT = 512
"""Values the shape walk reads at most, so its cost stays bounded (a few microseconds for a small reply, tens
for a large one, against its encode of hundreds). A reply with more values than this is records or arrays,
JSON's ground in CPython, whatever its strings."""


def string_shape(value: Any, limit: int = WALK_LIMIT) -> tuple[int, bool]:
    """The longest string among the first `limit` values of `value` (depth first, in order, no recursion),
    and whether `value` holds more values than that."""
    longest = 0
    seen = 0
    pending = [value]
    while pending:
        if seen == limit:
            return longest, True
        item = pending.pop()
        seen += 1
        kind = type(item)
        if kind is str:
            if len(item) > longest:
                longest = len(item)
        elif kind is dict or kind is list:
            # Only what the walk can still read: a 100,000-item array must not cost 100,000 steps.
            room = limit - seen - len(pending) + 1
            items = list(islice(item.values() if kind is dict else item, room))
            if len(items) == room and len(item) > room:
                return longest, True
            items.reverse()
            pending.extend(items)
    return longest, False


def carries_media(result: Any) -> bool:
    """Whether a result holds media that native bytes send as bin (SPEC 8.2)."""
    return any(isinstance(h.get(k), str) and h.get(k) for h, k in media_slots({"result": result}))


def cheaper_as_msgpack(result: Any, *, native: bool) -> bool:
    """'cheapest-cpu' for one reply's result: MessagePack for bin media, and for a reply that is mostly long
    text (a string of `LONG_STRING_CHARS` or more among fewer than `WALK_LIMIT` values); JSON for the rest,
    records above all, where every value costs CPython's MessagePack path several times JSON's."""
    if native and carries_media(result):
        return True
    longest, many = string_shape(result)
    return longest >= LONG_STRING_CHARS and not many
