"""The media types of msgpack-v1 over HTTP (SPEC 9.1, 9.2, 9.6) and how a request's headers choose among them."""

from __future__ import annotations

from collections.abc import Iterable

JSON = "application/json"
SSE = "text/event-stream"
MSGPACK = "application/msgpack"
"""The single-body type this package sends: every peer since 0.1.0 reads it."""
MSGPACK_IANA = "application/vnd.msgpack"
"""The IANA-registered name (2024), which other MessagePack HTTP stacks use: read as `MSGPACK`."""
MSGPACK_BODY_TYPES = (MSGPACK, MSGPACK_IANA)
FRAME_STREAM = "application/vnd.mcp-msgpack.stream"

WIRE_HEADER = "mcp-msgpack-wire"
"""Sent by a server on a JSON reply it chose for a MessagePack POST (SPEC 9.6 rule 5)."""

CLIENT_ACCEPT = f"{MSGPACK};replies=any, {FRAME_STREAM}, {JSON}, {SSE}"
"""What a MessagePack client accepts on a POST (SPEC 9.2), reading a one-body reply in either encoding (9.6)."""
CLIENT_GET_ACCEPT = f"{FRAME_STREAM}, {SSE}"
JSON_ACCEPT = f"{JSON}, {SSE}"

VARY = "Accept, Content-Type, Accept-Encoding"
"""Accept-Encoding too: a server that may code replies says so on every reply, coded or not (SPEC 10.2 rule 2)."""


def media_type(header_value: str | None) -> tuple[str, dict[str, str]]:
    """`type/subtype` in lower case and its parameters (names lower-cased, quotes removed) from one header value."""
    if not header_value:
        return "", {}
    head, *params = header_value.split(";")
    parsed: dict[str, str] = {}
    for param in params:
        name, sep, value = param.partition("=")
        if sep:
            parsed[name.strip().lower()] = value.strip().strip('"')
    return head.strip().lower(), parsed


def is_msgpack_body(content_type: str | None) -> bool:
    """Whether a Content-Type names a msgpack-v1 body (either name; `v` absent or 1: SPEC 9.1)."""
    kind, params = media_type(content_type)
    return kind in MSGPACK_BODY_TYPES and params.get("v", "1") == "1"


def is_msgpack_body_any_version(content_type: str | None) -> bool:
    kind, _ = media_type(content_type)
    return kind in MSGPACK_BODY_TYPES


def is_json_body(content_type: str | None) -> bool:
    return media_type(content_type)[0] == JSON


def _ranges(accept: str | None) -> Iterable[tuple[str, dict[str, str], float]]:
    for item in (accept or "").split(","):
        kind, params = media_type(item)
        if not kind:
            continue
        try:
            quality = float(params.get("q", "1"))
        except ValueError:
            quality = 1.0
        if quality > 0:
            yield kind, params, quality


class AcceptChoice:
    """What one request's `Accept` allows (SPEC 9.2, 9.6): reply wire, streams, per-reply choice."""

    __slots__ = ("json", "sse", "msgpack", "frames", "replies_any", "msgpack_first")

    def __init__(self, accept: str | None) -> None:
        self.json = self.sse = self.msgpack = self.frames = self.replies_any = False
        first: str | None = None
        for kind, params, _ in _ranges(accept):
            # A wildcard lists neither type (SPEC 9.2: `Accept: */*` is 406), as the SDKs' servers read it.
            if kind == SSE:
                self.sse = True
            if kind == JSON:
                self.json = True
                first = first or JSON
            elif kind in MSGPACK_BODY_TYPES and params.get("v", "1") == "1":
                self.msgpack = True
                first = first or MSGPACK
                if params.get("replies", "").lower() == "any":
                    self.replies_any = True
            elif kind == FRAME_STREAM:
                self.frames = True
        self.msgpack_first = first == MSGPACK

    @property
    def prefers_msgpack(self) -> bool:
        """MessagePack replies: the body type listed (ahead of JSON, if both) and the frame stream (SPEC 9.2)."""
        return self.msgpack and self.frames and self.msgpack_first

    @property
    def json_complete(self) -> bool:
        return self.json and self.sse
