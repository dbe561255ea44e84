"""The guarded msgpack-v1 decoder: SPEC 4.1 checked on the bytes first, then built, then 8.3 and 4.2 (in
`bin_places` and `jsonrpc`), in SPEC 4.3's order."""

from __future__ import annotations

import msgpack

from .bin_places import check_bin_places
from .bulk import bulk_decode
from .errors import WireError
from .guard import ManyValues, guard_payload
from .jsonrpc import check_message
from .limits import DEFAULT_LIMITS, ReceiveLimits
from .numbers import round_big_ints

# A payload whose exact reading counts more budget words than this (a few hundred values) is tried on the
# bulk path first: reading on costs ~3 us a value in Python, the bulk path's C passes less than 0.1 us.
HANDOFF_WORDS = 256


def decode_value(data: bytes | bytearray | memoryview, limits: ReceiveLimits | None = None) -> object:
    """One MessagePack value under the receive rules of SPEC 4.1 (no JSON-RPC check). Raises WireError."""
    return decode_counting_bins(data, limits)[0]


def decode_counting_bins(data: bytes | bytearray | memoryview, limits: ReceiveLimits | None = None) -> tuple[object, int]:
    """decode_value, and how many bins the payload held (for the native-bytes check of SPEC 8.3)."""
    if type(data) is not bytes:
        data = bytes(data)
    limits = limits or DEFAULT_LIMITS
    try:
        result = guard_payload(data, limits, HANDOFF_WORDS)
    except ManyValues:
        decoded = bulk_decode(data, limits)
        if decoded is not None:
            return decoded
        result = guard_payload(data, limits)  # the bulk path could not tell: the exact reading, to the end
    return build(data, result.big_ints), result.bins


def build(data: bytes, big_ints: bool) -> object:
    """Builds a payload the guard accepted (`big_ints`: it holds ints beyond +-(2^53-1), to round)."""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False, unicode_errors="replace")
    except Exception as exc:  # the guard has read the same bytes; this is a defect, reported as a refusal
        raise WireError("malformed-msgpack", "4.1.8", f"the MessagePack library refused it: {exc}") from exc
    return round_big_ints(value) if big_ints else value


def check_decoded(value: object, bins: int, *, allow_batch: bool = False) -> object:
    """The checks on a decoded value, in SPEC 4.3's order (step 4): 8.3 (each of its `bins` bins at a media
    field of its message), then 4.2. Raises WireError. Returns `value`."""
    if bins:
        check_bin_places(value, bins)
    return check_message(value, allow_batch=allow_batch)


def decode_payload(data: bytes | bytearray | memoryview, limits: ReceiveLimits | None = None) -> object:
    """One JSON-RPC message from a msgpack-v1 payload, refusing everything SPEC 4 and 8.3 refuse, and for
    the first fault SPEC 4.3 names (WireError)."""
    return check_decoded(*decode_counting_bins(data, limits))
