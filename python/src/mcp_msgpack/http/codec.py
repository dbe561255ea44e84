"""SessionMessages to HTTP bodies and back, on either wire, with native bytes at the edge (SPEC 8)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pydantic_core
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCMessage

from ..messages import from_session_message, to_session_message
from ..wire import ReceiveLimits, WireError, check_message, decode_value, encode_payload
from . import native_bytes

_BIN_LIMITS_CACHE: dict[ReceiveLimits, ReceiveLimits] = {}


def _with_bin(limits: ReceiveLimits) -> ReceiveLimits:
    allowed = _BIN_LIMITS_CACHE.get(limits)
    if allowed is None:
        allowed = _BIN_LIMITS_CACHE[limits] = replace(limits, allow_bin=True)
    return allowed


def decode_msgpack(data: bytes, limits: ReceiveLimits, *, native: bool, control: bool = False) -> Any:
    """One msgpack-v1 body or frame payload to plain values, its media bin (if `native`) turned to base64.

    A bin anywhere but a media field, or any bin while native bytes are not in force, is `forbidden-type`
    (SPEC 8.3): the decoder refuses it outright without `native`; with it, a bin left after the media fields
    were converted is refused here. With `control`, a map without `jsonrpc` is a frame stream's control map
    (SPEC 9.3) and is returned as it is.
    """
    value = decode_value(data, _with_bin(limits) if native else limits)
    if not (control and isinstance(value, dict) and "jsonrpc" not in value):
        check_message(value, allow_batch=True)
    if not native or not native_bytes.may_hold_bin(data):
        return value
    for message in value if isinstance(value, list) else [value]:
        if isinstance(message, dict):
            native_bytes.media_to_base64(message)
    if native_bytes.holds_bin(value):
        raise WireError("forbidden-type", "8.3", "a bin outside the media fields")
    return value


def session_message(value: Any) -> SessionMessage:
    return to_session_message(value)


def message_dict(message: SessionMessage | JSONRPCMessage) -> dict[str, Any]:
    return from_session_message(message if isinstance(message, SessionMessage) else SessionMessage(message))


def encode_msgpack(message: SessionMessage | JSONRPCMessage | dict[str, Any], *, native: bool) -> bytes:
    """A message as one msgpack-v1 value; with `native`, its base64 media as bin."""
    value = message if isinstance(message, dict) else message_dict(message)
    if native:
        native_bytes.media_to_bin(value)
    return encode_payload(value)


def encode_json(message: JSONRPCMessage | dict[str, Any]) -> bytes:
    if isinstance(message, dict):
        return pydantic_core.to_json(message)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()
