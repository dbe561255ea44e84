"""The guarded msgpack-v1 decoder: SPEC 4.1 checked on the bytes first, then built, then SPEC 4.2."""

from __future__ import annotations

import msgpack

from .errors import WireError
from .bulk import bulk_decode
from .guard import ManyValues, guard_payload
from .limits import DEFAULT_LIMITS, ReceiveLimits

_SAFE = 2**53 - 1
# A payload whose exact reading counts more budget words than this (a few hundred values) is tried on the
# bulk path first: reading on costs ~3 us a value in Python, the bulk path's C passes less than 0.1 us.
HANDOFF_WORDS = 256


def _round_big_ints(value: object) -> object:
    """Ints beyond +-(2^53-1) become the nearest binary64 (SPEC 3.3), kept as Python ints since integral."""
    if type(value) is int:
        return int(float(value)) if value > _SAFE or value < -_SAFE else value
    if type(value) is dict:
        for key, item in value.items():
            if type(item) in (int, dict, list):
                value[key] = _round_big_ints(item)
    elif type(value) is list:
        for index, item in enumerate(value):
            if type(item) in (int, dict, list):
                value[index] = _round_big_ints(item)
    return value


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
    return _round_big_ints(value) if big_ints else value


def _is_id(value: object) -> bool:
    return type(value) is str or (type(value) is int and -_SAFE <= value <= _SAFE)


def _shape_fault(message: object) -> str | None:
    """Why `message` is not one JSON-RPC 2.0 message of SPEC 4.2, or None."""
    if type(message) is not dict:
        return "not a map"
    if message.get("jsonrpc") != "2.0":
        return "jsonrpc is not the string 2.0"
    allowed: tuple[str, ...]
    if "method" in message:
        if type(message["method"]) is not str:
            return "method is not a string"
        if "id" in message and not _is_id(message["id"]):
            return "a request's id is neither a string nor an integer within +-(2^53-1)"
        if "params" in message:
            fault = _params_fault(message["params"])
            if fault:
                return fault
        allowed = ("jsonrpc", "id", "method", "params")
    elif "result" in message:
        if "error" in message:
            return "both result and error"
        if "id" not in message or not _is_id(message["id"]):
            return "a result's id is neither a string nor an integer within +-(2^53-1)"
        fault = _params_fault(message["result"], "result")
        if fault:
            return fault
        allowed = ("jsonrpc", "id", "result")
    elif "error" in message:
        if "id" in message and message["id"] is not None and not _is_id(message["id"]):
            return "an error's id is neither nil, a string nor an integer within +-(2^53-1)"
        error = message["error"]
        if type(error) is not dict:
            return "error is not a map"
        code = error.get("code")
        if type(code) is not int or not -_SAFE <= code <= _SAFE:
            return "error.code is not an integer"
        if type(error.get("message")) is not str:
            return "error.message is not a string"
        allowed = ("jsonrpc", "id", "error")
    else:
        return "neither method, result nor error"
    for key in message:
        if key not in allowed:
            return f"a top-level member {key!r}"
    return None


def _params_fault(params: object, name: str = "params") -> str | None:
    if type(params) is not dict:
        return f"{name} is not a map"
    meta = params.get("_meta")
    if meta is None and "_meta" not in params:
        return None
    if type(meta) is not dict:
        return f"{name}._meta is not a map"
    if "progressToken" in meta and not _is_id(meta["progressToken"]):
        return f"{name}._meta.progressToken is neither a string nor an integer"
    related = meta.get("io.modelcontextprotocol/related-task")
    if related is not None or "io.modelcontextprotocol/related-task" in meta:
        if type(related) is not dict or type(related.get("taskId")) is not str:
            return f"{name}._meta related-task is not a map with a string taskId"
    return None


def check_message(value: object, *, allow_batch: bool = False) -> object:
    """Raises WireError not-json-rpc (SPEC 4.2) unless `value` is one JSON-RPC message (or, with
    `allow_batch`, a non-empty array of them, as HTTP bodies may be). Returns `value`."""
    if allow_batch and type(value) is list:
        if not value:
            raise WireError("not-json-rpc", "4.2", "an empty batch")
        for item in value:
            check_message(item)
        return value
    fault = _shape_fault(value)
    if fault:
        error = WireError("not-json-rpc", "4.2", fault)
        if type(value) is dict and _is_id(value.get("id")):
            kind = "request" if "method" in value else ("response" if "result" in value or "error" in value else None)
            error.with_id(value["id"], kind)
        raise error
    return value


def check_decoded(value: object, bins: int, *, allow_batch: bool = False) -> object:
    """The checks on a decoded value, in SPEC 4.3's order (step 4): 8.3 (each of its `bins` bins at a media
    field of its message), then 4.2. Raises WireError. Returns `value`."""
    if bins:
        from ..shared.native_bytes import check_bin_places  # the media fields are the extension's; it imports this

        check_bin_places(value, bins)
    return check_message(value, allow_batch=allow_batch)


def decode_payload(data: bytes | bytearray | memoryview, limits: ReceiveLimits | None = None) -> object:
    """One JSON-RPC message from a msgpack-v1 payload, refusing everything SPEC 4 and 8.3 refuse, and for
    the first fault SPEC 4.3 names (WireError)."""
    return check_decoded(*decode_counting_bins(data, limits))
