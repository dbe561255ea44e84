"""SessionMessages to HTTP bodies and back, on either wire, with native bytes at the edge (SPEC 8)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pydantic_core
from mcp.shared.message import SessionMessage

from .held_media import HeldMedia
from .media_conversion import base64_to_bin, bin_to_media, held_to_base64
from .message import from_session_message, to_session_message
from .sdk_compat import types
from ..wire import ReceiveLimits, WireError, encode_payload
from ..wire.decode import check_decoded
from ..wire.decode import decode_counting_bins

_WITH_BIN: dict[ReceiveLimits, ReceiveLimits] = {}


def _with_bin(limits: ReceiveLimits) -> ReceiveLimits:
    allowed = _WITH_BIN.get(limits)
    if allowed is None:
        allowed = _WITH_BIN[limits] = replace(limits, allow_bin=True)
    return allowed


def decode_msgpack(
    data: bytes,
    limits: ReceiveLimits,
    *,
    native: bool,
    control: bool = False,
    keep_bytes: bool | Callable[[Any], bool] = False,
) -> Any:
    """One msgpack-v1 body or frame payload to plain values.

    Without `native` any bin is refused (SPEC 4.1.3); with it, bin at the media fields becomes the base64
    the SDK's models hold (or, where `keep_bytes` is true or says so of the value, a placeholder for `call_tool_native`), and a bin anywhere
    else is refused (8.3). With `control`, a map without `jsonrpc` is a frame stream's control map (9.3),
    returned as it is.
    """
    value, bins = decode_counting_bins(data, _with_bin(limits) if native else limits)
    if bins and not isinstance(value, dict):
        raise WireError("forbidden-type", "8.3", "a bin in a batch")
    if not (control and isinstance(value, dict) and "jsonrpc" not in value):
        # SPEC 4.3: a bin's place (8.3) is judged before the message's shape (4.2).
        check_decoded(value, bins, allow_batch=True)
    keep = native and (keep_bytes(value) if callable(keep_bytes) else keep_bytes)
    if (bins or keep) and isinstance(value, dict):  # a bin in a batch was refused above
        bin_to_media(value, bins, keep_bytes=keep)
    return value


def session_message(value: Any) -> SessionMessage:
    return to_session_message(value)


def message_dict(message: SessionMessage | types.JSONRPCMessage) -> dict[str, Any]:
    return from_session_message(message)


def encode_msgpack(
    message: SessionMessage | types.JSONRPCMessage | dict[str, Any], *, native: bool, held: HeldMedia | None = None
) -> bytes:
    """A message as one msgpack-v1 value; with `native`, its media as bin (held media from `held` as they are,
    an application's base64 decoded)."""
    value = message if isinstance(message, dict) else message_dict(message)
    if native:
        base64_to_bin(value, held)  # SIMD base64 there when pybase64 is installed (the [fast] extra)
    elif held:  # a message sent without bin carries a held medium as base64
        held_to_base64(value, held)
    return encode_payload(value)


def encode_json(message: types.JSONRPCMessage | dict[str, Any]) -> bytes:
    if isinstance(message, dict):
        return pydantic_core.to_json(message)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()
