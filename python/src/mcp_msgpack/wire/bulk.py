"""A payload of many values, decoded at C speed when it is plainly within every receive rule of SPEC 4.1.

The exact guard (guard.py) reads a payload value by value in Python: about 3 us a value, most of a 50 KB
object's receive. This path answers only "certainly accepted" (the value, built once by msgpack's C code) or
"cannot tell" (None: the exact guard then reads the payload and names its first fault), so every refusal
stays the exact guard's, code and rule included. It never accepts what the exact guard refuses:

- budgets (4.1.9 and this receiver's heap bound): bounded from above from the bytes alone, before anything
  is built. Each byte, read as if a value started there, is charged the most that value could add to the
  guard's counts and to CPython's heap (a str header 160 heap bytes, a map header 700, ...; any byte 8).
  The bound is loose for non-ASCII text (its bytes look like headers), which then goes to the exact guard.
  Distinct short keys and shapes: each needs a str header, so their number bounds both.
- structure (4.1.7, 4.1.8: truncation, counts no bytes back, bytes after the value): msgpack's C skip reads
  the payload without building anything; it must read exactly all of it. Only then is anything built, so a
  header's count cannot make the build reserve more than the entries the payload holds.
- c1, ext and non-string keys (4.1.1, 4.1.2, 4.1.4): the build fails on them.
- repeated keys (a dict would merge them, hiding the earlier value from every check) and anything else a
  dict or str would not give back as sent: the built value must re-encode to the payload's exact bytes. A
  canonical payload (SPEC 3.2, what every sender of this project writes) does; any other is read exactly.
- depth, ext, NaN and Infinity (4.1.6, 4.1.1, 4.1.10) and the ints to round: the value level by level, by
  C-level filters over each level's values; where the payload holds a bin header byte or the bytes
  `__proto__`, one Python walk over every value with its member (4.1.3, 4.1.4, 4.1.5) instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, islice
from math import isfinite
from typing import Any

import msgpack

from .guard import BIN_MEMBERS, FORBIDDEN_KEY
from .limits import ReceiveLimits
from .numbers import MAX_SAFE_INTEGER, round_big_ints

# Byte classes: 0 any other byte (a fixint, nil, a bool, or inside a str or bin), 1 a number with its own
# object (an int outside fixint, a negative fixint, a float), 2 a str header, 3 an array or map header, 4 a
# bin header. Per class: heap bytes (the larger of the guard's estimate and CPython's own) and budget words.
_CLASS = bytearray(256)
for _b in [*range(0xE0, 0x100), *range(0xCA, 0xD4)]:
    _CLASS[_b] = 1
for _b in [*range(0xA0, 0xC0), 0xD9, 0xDA, 0xDB]:
    _CLASS[_b] = 2
for _b in [*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF]:
    _CLASS[_b] = 3
for _b in (0xC4, 0xC5, 0xC6):
    _CLASS[_b] = 4
_CLASS_TABLE = bytes(_CLASS)
# A map of up to 15 entries: the guard counts 64 + 40 per entry, CPython up to 464; a larger map's entries are
# charged to its keys (each key's str header: 46 for its dict entry, 96 + its length for the interned key).
_HEAP = (8, 40, 160, 700, 48)
_WORDS = (1, 1, 7, 8, 48)
_CLASS_BYTES = b"\x01\x02\x03\x04"

_pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack
_CONTAINERS = frozenset((dict, list))
_PLAIN_TYPES = frozenset((dict, list, str, int, float, bool, type(None)))
_IS_FLOAT = frozenset((float,)).__contains__
_IS_INT = frozenset((int,)).__contains__
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _no_ext(code: int, data: bytes) -> object:
    raise ValueError("ext")


def bulk_decode(data: bytes, limits: ReceiveLimits) -> tuple[object, int] | None:
    """(value, bins) for a payload the exact guard would accept, built by msgpack's C code, with ints beyond
    +-(2^53-1) rounded (SPEC 3.3); None when it cannot tell cheaply."""
    n = len(data)
    if n == 0:
        return None
    classes = data.translate(_CLASS_TABLE)
    counts = [classes.count(c) for c in _CLASS_BYTES]
    del classes
    counts.insert(0, n - sum(counts))
    heap = sum(c * w for c, w in zip(counts, _HEAP))
    words = sum(c * w for c, w in zip(counts, _WORDS))
    strs, containers, bins = counts[2:]
    max_keys = limits.key_base + n // limits.bytes_per_key
    if (
        heap + n > limits.heap_bound(n)  # n: the re-encoding, held with the value
        or words > limits.word_base + n // limits.bytes_per_word
        or containers + bins > limits.container_base + n // limits.bytes_per_container
        or (n // 2 > max_keys and strs > max_keys)
    ):
        return None
    skipper = msgpack.Unpacker(max_buffer_size=n)
    skipper.feed(data)
    try:
        skipper.skip()
    except Exception:  # noqa: BLE001 - any failure: the exact guard names it
        return None
    if skipper.tell() != n:
        return None
    del skipper  # its copy of the payload
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, unicode_errors="replace", ext_hook=_no_ext)
        if _pack(value) != data:
            return None
    except Exception:  # noqa: BLE001
        return None
    # A bin (or a bin key) and `__proto__` need each value's member: one Python walk; else C-level filters.
    found = _walk(value, limits.max_depth, limits.allow_bin) if bins or FORBIDDEN_KEY in data else _scan(value, limits.max_depth)
    if found is None:
        return None
    bins_found, big_ints = found
    if big_ints:
        value = round_big_ints(value)
    return value, bins_found


_CHUNK = 1 << 16
"""Values examined at once by _scan: its temporaries (types, filters) stay a few hundred KiB whatever the
payload, instead of a copy of a whole level (a 4 MiB array of nils: 64 MB of them, issue 39 item 4)."""

_IS_CONTAINER = frozenset((dict, list)).__contains__


def _chunks(node: dict[str, Any] | list[Any]) -> Iterator[list[Any]]:
    if isinstance(node, list):
        for start in range(0, len(node), _CHUNK):
            yield node[start : start + _CHUNK]
        return
    values = iter(node.values())
    while chunk := list(islice(values, _CHUNK)):
        yield chunk


def _scan(value: Any, max_depth: int) -> tuple[int, bool] | None:
    """_walk for a value without bins, `__proto__` or bin keys (the caller knows from the bytes), level by level
    with C-level filters over bounded chunks: depth (4.1.6), no ext (4.1.1), finite floats (4.1.10), ints
    beyond +-(2^53-1)."""
    big_ints = False

    def plain(chunk: list[Any], below: list[Any] | None) -> bool:
        nonlocal big_ints
        kinds = list(map(type, chunk))
        present = set(kinds)
        if not present <= _PLAIN_TYPES:
            return False  # an ext msgpack built itself (a bin cannot be here: the caller walks those)
        if float in present and not all(map(isfinite, compress(chunk, map(_IS_FLOAT, kinds)))):
            return False
        if int in present:
            ints = list(compress(chunk, map(_IS_INT, kinds)))
            big_ints = big_ints or max(ints) > MAX_SAFE_INTEGER or min(ints) < -MAX_SAFE_INTEGER
        if below is not None and present & _CONTAINERS:
            below.extend(compress(chunk, map(_IS_CONTAINER, kinds)))
        return True

    if not plain([value], None):
        return None
    level: list[Any] = [value] if type(value) in _CONTAINERS else []
    depth = 1
    while level:
        if depth > max_depth:
            return None
        below: list[Any] = []  # the containers one level down: at most the payload's container count
        for node in level:
            for chunk in _chunks(node):
                if not plain(chunk, below):
                    return None
        level = below
        depth += 1
    return 0, big_ints


def _walk(value: Any, max_depth: int, allow_bin: bool) -> tuple[int, bool] | None:
    """(bins, any int beyond +-(2^53-1)) if every value passes SPEC 4.1.3-4.1.6 and 4.1.10, else None."""
    kind = type(value)
    if kind is not dict and kind is not list:
        if (kind is float and value - value != 0) or kind not in _SCALARS:  # inf - inf and nan - nan are nan
            return None
        return 0, kind is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    bins = 0
    big_ints = False
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, level = pop()
        if level > max_depth:
            return None
        inner = level + 1
        is_map = type(node) is dict
        if is_map:
            for key in node:
                if type(key) is not str or key == "__proto__":
                    return None
        here = 0  # bins in this container
        for item in node.values() if is_map else node:
            kind = type(item)
            if kind is dict or kind is list:
                push((item, inner))
            elif kind is int:
                if item > MAX_SAFE_INTEGER or item < -MAX_SAFE_INTEGER:
                    big_ints = True
            elif kind is float:
                if item - item != 0:
                    return None
            elif kind is bytes:
                here += 1
            elif kind is not str and kind is not bool and item is not None:
                return None  # an ext msgpack built itself (4.1.1)
        if here:
            # A bin stands only as the value of a data or blob member (4.1.3), never in an array.
            if not (allow_bin and is_map and here == sum(type(node.get(k)) is bytes for k in BIN_MEMBERS)):
                return None
            bins += here
    return bins, big_ints
