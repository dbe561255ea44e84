"""The canonical msgpack-v1 encoder (SPEC 3.2): one message, one exact byte sequence, in any language."""

from __future__ import annotations

import codecs
import math
import struct
from collections.abc import Callable
from itertools import islice
from typing import Any

import msgpack

from .errors import WireError
from .numbers import MAX_SAFE_INTEGER

_EXACT_INT = MAX_SAFE_INTEGER + 1  # 2^53 itself is exact in binary64: ints up to it are written as they are
_INT_MIN = -(2**63)
_INT_END = 2**64


def _ufffd_for_surrogates(error: UnicodeError) -> tuple[bytes, int]:
    """Lone surrogates become U+FFFD (SPEC 3.2.8); a high+low pair, as JavaScript would read it, its character."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text, start, end = error.object, error.start, error.end
    out = []
    i = start
    while i < end:
        c = ord(text[i])
        if 0xD800 <= c < 0xDC00 and i + 1 < len(text) and 0xDC00 <= ord(text[i + 1]) < 0xE000:
            out.append(chr(0x10000 + ((c - 0xD800) << 10) + (ord(text[i + 1]) - 0xDC00)))
            i += 2
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out).encode("utf-8"), i  # bytes: the UTF-8 codec takes only ASCII text from a handler


codecs.register_error("mcp-msgpack-ufffd", _ufffd_for_surrogates)


def _number_from_int(value: int) -> object:
    """A Python int as the binary64 a JSON parser would hold (SPEC 3.2.2), then as an int where integral."""
    try:
        rounded = float(value)  # correctly rounded, ties to even
    except OverflowError:
        return None  # beyond binary64: JSON.parse gives Infinity, which JSON writes as null
    return int(rounded) if _INT_MIN <= rounded < _INT_END else rounded


def _number_from_float(value: float) -> object:
    if value != value or value in (math.inf, -math.inf):
        return None  # no JSON form: JSON serialisers write null (SPEC 3.2.4)
    if value.is_integer() and _INT_MIN <= value < _INT_END:
        return int(value)  # -0.0 becomes 0, 1.0 becomes 1 (SPEC 3.2.3)
    return value


def _normalize(value: Any) -> Any:  # Any: the `type(value) is` tests below are the checks (mypy does not narrow them)
    """The JSON data model of `value`, copying only the containers that hold something to change."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int:
        return value if -_EXACT_INT <= value <= _EXACT_INT else _number_from_int(value)
    if kind is float:
        return _number_from_float(value)
    if kind is dict:
        out = None
        for index, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                if not isinstance(key, str):
                    raise TypeError(f"map keys must be str, not {type(key).__name__}")
                if out is None:
                    out = dict(islice(value.items(), index))
                key = "" + key
            new = _normalize(item)
            if out is None and new is not item:
                out = dict(islice(value.items(), index))
            if out is not None:
                out[key] = new
        return value if out is None else out
    if kind is list:
        out_list = None
        for index, item in enumerate(value):
            new = _normalize(item)
            if out_list is None and new is not item:
                out_list = list(islice(value, index))
            if out_list is not None:
                out_list.append(new)
        return value if out_list is None else out_list
    if kind is bytes or kind is bytearray:
        return value
    if kind is memoryview:
        return value.tobytes()
    if kind is tuple:
        return [_normalize(item) for item in value]
    # Subclasses (str and int enums, OrderedDict, ...): their plain value.
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return "" + value
    if isinstance(value, int):
        return _normalize(int(value))
    if isinstance(value, float):
        return _number_from_float(float(value))
    if isinstance(value, dict):
        return _normalize(dict(value))
    if isinstance(value, (list, tuple)):
        return [_normalize(item) for item in value]
    raise TypeError(f"{type(value).__name__} has no place in a JSON-RPC message")


_pack: Callable[[Any], bytes] = msgpack.Packer(use_bin_type=True, autoreset=True).pack


def _utf8_safe(value: object) -> object:
    """`value` with every str that holds surrogates rewritten as U+FFFD (pairs joined), for the rare retry."""
    if type(value) is str:
        return value.encode("utf-8", "mcp-msgpack-ufffd").decode("utf-8")
    if type(value) is dict:
        return {_utf8_safe(key): _utf8_safe(item) for key, item in value.items()}
    if type(value) is list:
        return [_utf8_safe(item) for item in value]
    return value


def encode_payload(obj: object) -> bytes:
    """The canonical msgpack-v1 payload of `obj` (SPEC 3.2): smallest headers, binary64 numbers written as
    ints where integral, keys in insertion order, bytes as bin, lone surrogates as U+FFFD.
    Raises TypeError for values JSON has no form for."""
    value = _normalize(obj)
    try:
        return _pack(value)
    except UnicodeEncodeError:
        # A lone surrogate (strict UTF-8 refuses it): rare, so only then is the value walked for strings.
        return _pack(_utf8_safe(value))


_HEADER = struct.Struct(">I")


def frame_payload(payload: bytes, max_bytes: int = 0xFFFFFFFF) -> bytes:
    """A frame (SPEC 2): the 4-byte big-endian length, then the payload."""
    if len(payload) > max_bytes:
        raise WireError("frame-too-large", "2", f"payload of {len(payload)} bytes over the cap of {max_bytes}")
    return _HEADER.pack(len(payload)) + payload


def encode_frame(obj: object) -> bytes:
    """`obj`'s canonical payload in a frame."""
    return frame_payload(encode_payload(obj))
