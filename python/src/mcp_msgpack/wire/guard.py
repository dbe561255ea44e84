"""The receive rules of SPEC 4.1, checked on a payload's bytes before anything is built.

One pass in byte order; the first fault found wins, in the order of SPEC 4.3. At each value: its slot word,
before its first byte is read (not for a map key); the first byte being there (4.1.8); for a key, a first byte
that starts no str, c1, ext or bin is non-string-key at once (4.1.4); c1 (4.1.2) and ext (4.1.1) at their
first byte; a bin's place (native bytes in force, the value of a data or blob member: 4.1.3) before its length
and bytes (4.1.8), then the container allowance and its 47 words (4.1.9); a float's bytes, then NaN or
Infinity (4.1.10); a str's length and bytes, then for a key `__proto__` (4.1.5) and the key and shape
allowances, for any other str of 2-15 bytes its 6 words (4.1.9); an array's or map's count, then the count
against the bytes left (4.1.7), the depth (4.1.6), the container allowance and its 7 words (4.1.9). After the
value: no bytes left over (4.1.8). This receiver's CPython heap bound (4.1.9, a runtime's own heap) is checked with the
allowances of 4.1.9.
"""

from __future__ import annotations

import re
import struct

from .errors import WireError
from .limits import DEFAULT_LIMITS, ReceiveLimits
from .numbers import MAX_SAFE_INTEGER, as_integer

# The members a bin may stand at (SPEC 4.1.3; 8.3 then judges its place in the message), and the key no map
# may hold (4.1.5).
BIN_MEMBERS = ("data", "blob")
FORBIDDEN_KEY = b"__proto__"
_BIN_MEMBER_KEYS = tuple(member.encode() for member in BIN_MEMBERS)
_SHAPE_KEYS_PER_MAP = 1024  # SPEC 4.1.9: a map's first 1,024 keys make shapes

# Size of the length field of str/bin/array/map headers and of fixed-size scalars, by first byte.
_STR_LEN = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN_LEN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY_LEN = {0xDC: 2, 0xDD: 4}
_MAP_LEN = {0xDE: 2, 0xDF: 4}
_INT_SIZE = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}


# One-byte values (ints -32..127, nil, booleans): an array's runs of them are counted at once.
_SCALAR_RUN = re.compile(rb"[\x00-\x7f\xc0\xc2\xc3\xe0-\xff]{2,}")
# The ones CPython builds an int object for (-32..-6); the others are shared.
_NOT_UNCACHED = bytes(range(0xE0)) + bytes(range(0xFB, 0x100))
_ONE_BYTE = frozenset([*range(0x80), 0xC0, 0xC2, 0xC3, *range(0xE0, 0x100)])


class GuardResult:
    """What the scan learned that the build needs: whether any int lies beyond +-(2^53-1) (to round them,
    SPEC 3.3) and whether any bin stands in the payload."""

    __slots__ = ("big_ints", "bins")

    def __init__(self, big_ints: bool, bins: int) -> None:
        self.big_ints = big_ints
        self.bins = bins


class ManyValues(Exception):
    """Raised by guard_payload with `handoff_words` once it has counted more words than that, no fault found."""


def guard_payload(data: bytes, limits: ReceiveLimits = DEFAULT_LIMITS, handoff_words: int = 0) -> GuardResult:
    """Checks every rule of SPEC 4.1 on `data` (one payload). Raises WireError, with the top-level id read
    before the fault when there was one (SPEC 5.2). With `handoff_words`, raises ManyValues instead once the
    words counted pass it, before any fault (a payload of many values, for bulk.py to try first)."""
    n = len(data)
    if n == 0:
        raise WireError("empty-payload", "4.1.8", "the payload is empty")
    max_containers = limits.container_base + n // limits.bytes_per_container
    max_words = limits.word_base + n // limits.bytes_per_word
    # Where reading stops for the bulk path (bulk.py) to take over: the words counted so far bound the
    # values read, so a payload of few values never leaves this exact reading.
    word_cap = min(max_words, handoff_words) if handoff_words else max_words
    max_keys = limits.key_base + n // limits.bytes_per_key
    max_heap = limits.heap_bound(n)
    # Each key and shape takes two bytes at least: below this size neither can break its allowance.
    count_keys = n // 2 > max_keys
    max_depth = limits.max_depth
    allow_bin = limits.allow_bin

    keys: dict[bytes, int] = {}  # every distinct key (by its bytes), numbered
    short_keys = 0  # of which shorter than 16 bytes: the ones the key allowance counts
    shapes: dict[int, int] = {}
    containers = 0
    words = 0
    heap = 0  # estimated CPython bytes of the built value (see ReceiveLimits.heap_per_byte)
    big_ints = False
    bins = 0

    # The containers open around the current position: per level, entries (values, counting keys) left,
    # whether it is a map, and for a map its shape node and number of keys so far.
    left: list[int] = []
    is_map: list[bool] = []
    shape: list[int] = []
    nkeys: list[int] = []
    # For a map of more than 5 entries (when keys are counted), the keys it has had: its dict's heap is priced
    # per distinct key as read, since a key written again (SPEC 3.4) adds no entry to what is built.
    map_keys: list[set[int] | None] = []
    # Top-level id recovery (SPEC 5.2).
    top_key: bytes | None = None
    found_id: list[object] = []
    seen: set[bytes] = set()

    last_key = b""  # the key just read: a bin's place is the value of a data or blob member (4.1.3)
    pos = 0

    def fail(code: str, rule: str, message: str) -> WireError:
        kind = "request" if b"method" in seen else ("response" if (b"result" in seen or b"error" in seen) else None)
        error = WireError(code, rule, f"{message} (at byte {pos})")
        if found_id:
            error.with_id(found_id[0], kind)
        else:
            error.kind = kind
        return error

    def over_words(words: int) -> Exception:
        if words > max_words:
            return fail("over-budget", "4.1.9", f"more than {max_words} words of built values")
        return ManyValues()

    while True:
        depth = len(left)
        at_key = depth > 0 and is_map[-1] and left[-1] % 2 == 0
        if depth and not is_map[-1] and left[-1] > 2 and pos < n and data[pos] in _ONE_BYTE:
            run = _SCALAR_RUN.match(data, pos, pos + left[-1])
            if run:
                k = run.end() - pos - 1  # all but the last, which the code below reads (and closes the array)
                words += k
                if words > word_cap:
                    raise over_words(words)
                heap += 32 * len(data[pos : pos + k].translate(None, _NOT_UNCACHED))
                pos += k
                left[-1] -= k
        if not at_key:
            # Its slot word, before its first byte is read (SPEC 4.3 a): a payload that ends where the word
            # allowance is exceeded is over budget, not truncated.
            words += 1
            if words > word_cap:
                raise over_words(words)
        if pos >= n:
            raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a value")
        b = data[pos]
        if b >= 0xC1 and (b == 0xC1 or 0xC7 <= b <= 0xC9 or 0xD4 <= b <= 0xD8):
            what = "the reserved byte c1" if b == 0xC1 else f"an ext value ({b:#04x})"
            raise fail("forbidden-type", "4.1.2" if b == 0xC1 else "4.1.1", f"{what} has no place in msgpack-v1")
        is_str = (0xA0 <= b <= 0xBF) or b in _STR_LEN
        if at_key and not is_str and b not in _BIN_LEN:
            # A key is judged at its first byte (SPEC 4.3 c): c1 and ext were refused above, a bin key goes on
            # to 4.1.3 below, anything else is refused without reading past that byte.
            raise fail("non-string-key", "4.1.4", f"a map key of type byte {b:#04x}")

        value_done = True
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            if 0xE0 <= b < 0xFB:
                heap += 32  # -32..-6: CPython caches ints from -5 to 256 only
            if depth == 1 and top_key == b"id":
                found_id[:] = [b - 0x100 if b >= 0xE0 else b] if b <= 0x7F or b >= 0xE0 else []
            pos += 1
        elif is_str:
            if b <= 0xBF:
                length = b & 0x1F
                start = pos + 1
            else:
                size = _STR_LEN[b]
                start = pos + 1 + size
                if start > n:
                    raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a str header")
                length = int.from_bytes(data[pos + 1 : start], "big")
            end = start + length
            if end > n:
                raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a str")
            if at_key:
                key = last_key = data[start:end]
                if key == FORBIDDEN_KEY:
                    raise fail("forbidden-key", "4.1.5", "a map key __proto__")
                if depth == 1:
                    top_key = key
                    seen.add(key)
                if count_keys:
                    key_id = keys.get(key)
                    if key_id is None:
                        key_id = keys[key] = len(keys)
                        if length < 16:
                            short_keys += 1
                            heap += 96 + length  # an interned str, and its place in the intern table
                            if short_keys > max_keys:
                                raise fail("over-budget", "4.1.9", f"more than {max_keys} distinct short map keys")
                    k = nkeys[-1]
                    if k < _SHAPE_KEYS_PER_MAP:
                        node = shape[-1] << 32 | key_id  # a trie node: (parent node, key), as one int
                        found = shapes.get(node)
                        if found is None:
                            found = len(shapes) + 1
                            shapes[node] = found
                            if found > max_keys:
                                raise fail("over-budget", "4.1.9", f"more than {max_keys} distinct map shapes")
                        shape[-1] = found
                    nkeys[-1] = k + 1
                    distinct = map_keys[-1]
                    if distinct is not None and key_id not in distinct:
                        distinct.add(key_id)
                        heap += 40
            else:
                if 2 <= length < 16:
                    words += 6  # its string (SPEC 4.1.9: 7 words in all with its slot)
                    if words > word_cap:
                        raise over_words(words)
                if length >= 2 or (length == 1 and data[start] >= 0x80):
                    heap += 80 + length
                    if heap > max_heap:
                        raise fail("over-budget", "4.1.9", f"an estimated {heap} bytes of CPython heap, over {max_heap}")
                if depth == 1 and top_key == b"id":
                    found_id[:] = [data[start:end].decode("utf-8", "replace")]
            pos = end
        elif b in _INT_SIZE:
            size = _INT_SIZE[b]
            end = pos + 1 + size
            if end > n:
                raise fail("malformed-msgpack", "4.1.8", "the payload ends inside an int")
            value = int.from_bytes(data[pos + 1 : end], "big", signed=b >= 0xD0)
            if value > 256 or value < -5:
                heap += 32
            if value > MAX_SAFE_INTEGER or value < -MAX_SAFE_INTEGER:
                big_ints = True
            elif depth == 1 and top_key == b"id":
                found_id[:] = [value]
            pos = end
        elif b == 0xCA or b == 0xCB:
            end = pos + (5 if b == 0xCA else 9)
            if end > n:
                raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a float")
            exponent = (
                (data[pos + 1] & 0x7F) << 1 | data[pos + 2] >> 7
                if b == 0xCA
                else (data[pos + 1] & 0x7F) << 4 | data[pos + 2] >> 4
            )
            if exponent == (0xFF if b == 0xCA else 0x7FF):
                raise fail("non-finite-number", "4.1.10", "a NaN or Infinity")
            heap += 24
            if depth == 1 and top_key == b"id":  # an integral float id answers as the integer (3.4)
                number = as_integer(struct.unpack(">f" if b == 0xCA else ">d", data[pos + 1 : end])[0])
                found_id[:] = [number] if type(number) is int else []
            pos = end
        else:
            # array, map or bin
            if b in _BIN_LEN:
                # SPEC 4.3 f: its place is judged at its first byte, before its length is read.
                if not allow_bin:
                    raise fail("forbidden-type", "4.1.3", "a bin where native bytes are not in force")
                if at_key or not (depth > 0 and is_map[-1] and last_key in _BIN_MEMBER_KEYS):
                    raise fail("forbidden-type", "4.1.3", "a bin that is not the value of a data or blob member")
                size = _BIN_LEN[b]
                start = pos + 1 + size
                if start > n:
                    raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a bin header")
                length = int.from_bytes(data[pos + 1 : start], "big")
                if start + length > n:
                    raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a bin")
                containers += 1
                bins += 1
                if containers > max_containers:
                    raise fail("over-budget", "4.1.9", f"more than {max_containers} arrays, maps and bins")
                words += 47  # its object and view (SPEC 4.1.9: 48 words in all with its slot)
                if words > word_cap:
                    raise over_words(words)
                heap += 40 + length
                pos = start + length
            else:
                if 0x90 <= b <= 0x9F:
                    count, mapping, start = b & 0x0F, False, pos + 1
                elif 0x80 <= b <= 0x8F:
                    count, mapping, start = b & 0x0F, True, pos + 1
                else:
                    mapping = b in _MAP_LEN
                    size = _MAP_LEN[b] if mapping else _ARRAY_LEN[b]
                    start = pos + 1 + size
                    if start > n:
                        raise fail("malformed-msgpack", "4.1.8", "the payload ends inside a header")
                    count = int.from_bytes(data[pos + 1 : start], "big")
                if count * (2 if mapping else 1) > n - start:
                    raise fail("malformed-msgpack", "4.1.7", f"a header claiming {count} entries, {n - start} bytes left")
                if depth + 1 > max_depth:
                    raise fail("too-deep", "4.1.6", f"nesting deeper than {max_depth}")
                containers += 1
                if containers > max_containers:
                    raise fail("over-budget", "4.1.9", f"more than {max_containers} arrays, maps and bins")
                words += 7
                if words > word_cap:
                    raise over_words(words)
                priced_per_key = mapping and count > 5 and count_keys
                if mapping:
                    heap += 64 if count == 0 else (184 if count <= 5 else (64 if priced_per_key else 64 + 40 * count))
                else:
                    heap += 56 + 8 * count
                if heap > max_heap:
                    raise fail("over-budget", "4.1.9", f"an estimated {heap} bytes of CPython heap, over {max_heap}")
                pos = start
                if count:
                    left.append(count * 2 if mapping else count)
                    is_map.append(mapping)
                    shape.append(0)
                    nkeys.append(0)
                    map_keys.append(set() if priced_per_key else None)
                    value_done = False
                    if depth == 1 and top_key == b"id":
                        found_id.clear()
        if value_done:
            # Close every container this value completes.
            while left:
                left[-1] -= 1
                if left[-1]:
                    break
                left.pop()
                is_map.pop()
                shape.pop()
                nkeys.pop()
                map_keys.pop()
            if not left:
                break
    # Scalars add to the heap estimate without a check each (the guard builds nothing, the build is next);
    # the value is complete here, so its heap fault comes before the bytes after it (SPEC 4.3 steps 2, 3).
    if heap > max_heap:
        raise fail("over-budget", "4.1.9", f"an estimated {heap} bytes of CPython heap, over {max_heap}")
    if pos != n:
        raise fail("malformed-msgpack", "4.1.8", f"{n - pos} bytes after the value")
    return GuardResult(big_ints, bins)

