"""One stdio connection's wire state, shared by the client and the server transports: what each outgoing
message becomes (a JSON line or a frame, SPEC 7), and what each incoming line or frame becomes for the SDK
(SPEC 4, 5.2, 8)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from ..wire.media_slots import media_slots
from .media_conversion import base64_to_bin, bin_to_media
from .encodings import check_encoding
from .message import from_session_message, to_session_message
from .sdk_compat import session_message, types, validate_message_json
from ..wire import FRAME, ReceiveLimits, WireError, encode_payload, frame_payload
from ..wire.decode import check_decoded, decode_counting_bins
from ..wire.limits import DEFAULT_MAX_FRAME_BYTES, MIXED_FRAME_LIMIT

logger = logging.getLogger("mcp_msgpack")

WIRE_META = "mcp-msgpack/wire"
MSGPACK_V1 = "msgpack-v1"

# What a side sends (SPEC 7): JSON lines, frames only, or per message on a mixed stream (7.4).
SEND_JSON = "json"
SEND_FRAMES = "frames"
SEND_MIXED = "mixed"

READ_SIZE = 1 << 16
"""Bytes read from the peer's pipe at a time."""


class Outcome:
    """What reading one message gave: a message for the session, an exception to report to it, and/or an
    error response to write back to the peer (SPEC 5.2)."""

    __slots__ = ("deliver", "reply")

    def __init__(self, deliver: SessionMessage | Exception | None = None, reply: bytes | None = None) -> None:
        self.deliver = deliver
        self.reply = reply


class WireState:
    """Send and receive rules of one connection. `send` is the outgoing wire; `native_send`/`native_receive`
    whether the native-bytes extension is in force in each direction."""

    def __init__(self, *, encoding: str = "cheapest-cpu", limits: ReceiveLimits | None = None) -> None:
        self.encoding = check_encoding(encoding)
        self.limits = limits or ReceiveLimits()
        self.send = SEND_JSON
        self.native_send = False
        self.native_receive = False
        # Requests whose results the application wants with bytes, not base64 (call_tool_native).
        self.native_results: set[object] = set()

    @property
    def max_bytes(self) -> int:
        return self.limits.max_frame_bytes or DEFAULT_MAX_FRAME_BYTES

    # --- sending -------------------------------------------------------------------------------------------

    def encode(self, message: types.JSONRPCMessage, *, as_frame: bool = False) -> bytes:
        """`message` as the bytes to write: a JSON line or a frame, as the wire and the encoding policy say
        (`as_frame`: a frame on a mixed stream whatever the policy, for a message that must go on msgpack-v1)."""
        if self.send == SEND_JSON or (self.send == SEND_MIXED and not as_frame and not self._frame_pays(message)):
            return json_line(message)
        value = from_session_message(message)
        if self.native_send:
            base64_to_bin(value)
        payload = encode_payload(value)
        if self.send == SEND_MIXED and len(payload) >= MIXED_FRAME_LIMIT:
            raise WireError("frame-too-large", "7.4", "a frame on a mixed stream must be under 144 MiB")
        return frame_payload(payload)

    def _frame_pays(self, message: types.JSONRPCMessage) -> bool:
        """On a mixed stream: whether this message goes as a frame. 'smallest' sends every message as a frame;
        'json' none; 'cheapest-cpu' (default) the ones whose media go as bin: in Python the SDK's Rust JSON
        dump costs less than building the plain values MessagePack needs for anything else
        (python/bench/measure_edges.py)."""
        if self.encoding == "smallest":
            return True
        if self.encoding == "json" or not self.native_send:
            return False
        holder = {"method": getattr(message, "method", None), "params": getattr(message, "params", None), "result": getattr(message, "result", None)}
        return any(isinstance(h.get(k), str) and h.get(k) for h, k in media_slots(holder))

    def error_reply(self, error: WireError) -> bytes | None:
        """The JSON-RPC error answering a refused request by its id (SPEC 5.2), in the current send wire."""
        if not (error.has_id and error.kind == "request"):
            return None
        reply = types.JSONRPCError(
            jsonrpc="2.0",
            id=error.request_id,  # type: ignore[arg-type]
            error=types.ErrorData(code=error.jsonrpc_code, message=f"msgpack-v1 payload refused: {error.detail}", data={"reason": error.code}),
        )
        return self.encode(reply)

    # --- receiving -----------------------------------------------------------------------------------------

    def read(self, kind: str, data: bytes) -> Outcome:
        """One line or frame, read from the peer."""
        if kind == FRAME:
            return self._read_frame(data)
        try:
            return Outcome(session_message(validate_message_json(data)))
        except ValueError as exc:  # the SDK's own JSON path: a bad line is reported to the session
            refused = self._line_request_refused(data, exc) if self.send == SEND_MIXED else None
            return self._refused(refused) if refused else Outcome(exc)

    @staticmethod
    def _line_request_refused(data: bytes, exc: ValueError) -> WireError | None:
        """On a mixed stream, a JSON line that is JSON but no JSON-RPC message, whose request id can be read: the
        4.2 refusal answering that id (-32600 not-json-rpc, SPEC 4.3 and 5.2, as for a frame). Anything else is
        left to the SDK's JSON path, as on the JSON wire."""
        try:
            value = json.loads(data)
        except ValueError:
            return None
        request_id = value.get("id") if type(value) is dict and "method" in value else None
        readable = type(request_id) is str or (type(request_id) is int and abs(request_id) <= 2**53 - 1)
        return WireError("not-json-rpc", "4.2", f"a JSON line that is no JSON-RPC message: {exc}", request_id=request_id, kind="request") if readable else None

    def may_receive_bin(self) -> bool:
        """Whether a frame from the peer may carry bin now (the extension in force, or an answer owed to a
        request that offered it on its own, SPEC 8.1 rule 5); `bin_allowed_in` then judges the message."""
        return self.native_receive

    def bin_allowed_in(self, value: dict[str, Any]) -> bool:
        return self.native_receive

    def _read_frame(self, payload: bytes) -> Outcome:
        native = self.may_receive_bin()
        limits = self.limits if not native or self.limits.allow_bin else replace(self.limits, allow_bin=True)
        try:
            value, bins = decode_counting_bins(payload, limits)
            check_decoded(value, bins)
            if bins and not (type(value) is dict and self.bin_allowed_in(value)):
                raise WireError("forbidden-type", "8.3", "bin in a message the native-bytes extension does not cover")
            if type(value) is dict and native:
                keep = value.get("id") in self.native_results and "method" not in value
                if bins or keep:
                    bin_to_media(value, bins, keep_bytes=keep)
            return Outcome(to_session_message(value))
        except WireError as error:
            return self._refused(error)
        except ValidationError as exc:
            # Valid JSON-RPC for the wire, not for the SDK's models: reported as the SDK reports a bad line.
            return Outcome(exc)

    def _refused(self, error: WireError) -> Outcome:
        logger.warning("msgpack-v1: refused a message: %s", error)
        if error.has_id and error.kind == "response":
            # Fail our own pending request at once instead of letting it time out (SPEC 5.2 rule 3).
            failure = types.JSONRPCError(
                jsonrpc="2.0",
                id=error.request_id,  # type: ignore[arg-type]
                error=types.ErrorData(code=error.jsonrpc_code, message=f"msgpack-v1 payload refused: {error.detail}", data={"reason": error.code}),
            )
            return Outcome(session_message(failure))
        return Outcome(error, self.error_reply(error))


def json_line(message: types.JSONRPCMessage) -> bytes:
    """The SDK's own JSON line for a message (its stdio transports' dump)."""
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


def wire_member(meta_holder: dict[str, Any] | None) -> object:
    """The `mcp-msgpack/wire` member of a params/result's `_meta`, or None."""
    if not isinstance(meta_holder, dict):
        return None
    meta = meta_holder.get("_meta")
    return meta.get(WIRE_META) if isinstance(meta, dict) else None


def strip_wire_member(holder: dict[str, Any]) -> None:
    """Removes the member (and `_meta`, if it held nothing else) before the SDK sees the message (7.1.3)."""
    meta = holder.get("_meta")
    if isinstance(meta, dict) and WIRE_META in meta:
        meta = {k: v for k, v in meta.items() if k != WIRE_META}
        if meta:
            holder["_meta"] = meta
        else:
            del holder["_meta"]


__all__ = ["Outcome", "WireState"]
