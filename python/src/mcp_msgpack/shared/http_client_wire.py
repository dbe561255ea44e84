"""Which wire a Streamable HTTP client speaks to one server (SPEC 9.2), and when it falls back to JSON for good.

Both HTTP clients keep this state here: the one of the SDK lines before 2.3 (`client/streamable_http_httpx.py`)
and mcp 2.3's (`client/streamable_http.py`, a subclass of the SDK's transport as well)."""

from __future__ import annotations

import logging
from typing import Literal

from . import http_media_types as media_types

logger = logging.getLogger(__name__)

Wire = Literal["auto", "msgpack", "json"]
REFUSALS = (400, 406, 415)
"""How stock servers refuse a MessagePack body unread: 415, or 400 (the Python SDK's Content-Type check), in JSON
or plain text; a server that read it answers its errors in MessagePack (SPEC 9.2, "Errors")."""


class ClientWire:
    """`wire='auto'` posts MessagePack and falls back to JSON for good when the server shows it does not speak
    msgpack-v1 (a refusal before any MessagePack reply, or a JSON reply to a MessagePack POST without
    `Mcp-Msgpack-Wire`); `'msgpack'` never falls back; `'json'` speaks only JSON."""

    def __init__(self, url: str, wire: Wire, native_bytes: bool) -> None:
        if wire not in ("auto", "msgpack", "json"):
            raise ValueError("wire must be 'auto', 'msgpack' or 'json'")
        self.url = url
        self.wire: Literal["msgpack", "json"] = "json" if wire == "json" else "msgpack"
        self._may_fall_back = wire == "auto"
        self.server_speaks_msgpack = False
        self.native_bytes = native_bytes and self.wire == "msgpack"
        self.native_bytes_in_force = False
        """True once the server confirmed native bytes for this session (SPEC 8.1 rule 3)."""

    def judge_reply(self, status: int, content_type: str | None, wire_header: str | None) -> Literal["read", "resend"]:
        """What a reply to a MessagePack POST shows: `'resend'` when the server refused it unread and the
        message must go again as JSON (the wire is JSON from now on), else `'read'`."""
        kind = media_types.media_type(content_type)[0]
        if media_types.is_msgpack_body(content_type) or kind == media_types.FRAME_STREAM or wire_header:
            self.server_speaks_msgpack = True
        elif self._may_fall_back and not self.server_speaks_msgpack and status in REFUSALS:
            self._fall_back_to_json(f"HTTP {status}, {content_type or 'no content type'}")
            return "resend"
        elif self._may_fall_back and not self.server_speaks_msgpack and kind == media_types.JSON:
            # Served, in JSON, without the header: a JSON-only server (SPEC 9.6 rule 5); this reply counts.
            self._fall_back_to_json("a JSON reply without Mcp-Msgpack-Wire")
        return "read"

    def counts_unlearned(self, posted_wire: str, status: int, content_type: str | None, wire_header: str | None) -> bool:
        """Whether a reply to a request the transport made itself (the tools/list prefetch), which teaches
        nothing, is an answer: a 200, and to a MessagePack body only from a server that has shown it speaks
        msgpack-v1, before or in this reply (anything else may be a JSON-only server's answer to bytes it could
        not read)."""
        kind = media_types.media_type(content_type)[0]
        shows_msgpack = media_types.is_msgpack_body(content_type) or kind == media_types.FRAME_STREAM or wire_header is not None
        return status == 200 and (posted_wire != "msgpack" or self.server_speaks_msgpack or shows_msgpack)

    def _fall_back_to_json(self, why: str) -> None:
        logger.info("%s does not speak msgpack-v1 (%s): speaking JSON from now on", self.url, why)
        self.wire = "json"
        self.native_bytes = False
