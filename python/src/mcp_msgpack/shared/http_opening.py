"""The HTTP client's opening, on both SDK lines' clients, as the TS client's: `notifications/initialized` to a
server that speaks msgpack-v1 is posted without waiting for its 202, so the session's first requests leave
beside it and the opening takes two round trips, not three (docs/MEASUREMENTS.md, the link scenario). Such a
server waits a moment for the notification when a request overtakes it (SPEC 9.4); a request it refuses as
`not-initialized` anyway goes again, once, after the notification was accepted. A JSON-only server, or a
client with auth (a 401 to the notification would be recovered side by side with the requests' own), keeps
the SDK's order, the 202 awaited first."""

from __future__ import annotations

from typing import Any

import anyio

from ..wire import ReceiveLimits
from . import http_media_types as media_types
from .http_codec import decode_msgpack


def posts_initialized_in_background(message: Any, server_speaks_msgpack: bool, auth: Any) -> bool:
    """Whether this message (a dict, or the SDK's model) is the notification to post without waiting."""
    method = message.get("method") if isinstance(message, dict) else getattr(message, "method", None)
    is_notification = "id" not in message if isinstance(message, dict) else not hasattr(message, "id")
    return method == "notifications/initialized" and is_notification and server_speaks_msgpack and auth is None


def is_not_initialized_refusal(status: int, content_type: str | None, body: bytes, limits: ReceiveLimits) -> bool:
    """Whether a reply is SPEC 9.4's 400 `not-initialized` (a MessagePack JSON-RPC error with that reason)."""
    if status != 400 or not media_types.is_msgpack_body(content_type):
        return False
    try:
        refusal = decode_msgpack(body, limits, native=False)
    except Exception:  # not a JSON-RPC error: answered as any other 400
        return False
    error = refusal.get("error") if isinstance(refusal, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    return isinstance(data, dict) and data.get("reason") == "not-initialized"


class InitializedInBackground:
    """One client's notification posted in the background: `posted` is set once its POST ended, `accepted`
    says whether the server took it (2xx)."""

    def __init__(self) -> None:
        self.posted: anyio.Event | None = None
        self.accepted = False

    def start(self) -> anyio.Event:
        self.posted = anyio.Event()
        return self.posted

    async def retries(self, response: Any, limits: ReceiveLimits) -> bool:
        """Whether a reply to a request is the server's `not-initialized` refusal while the notification was in
        flight: then, once the notification was accepted, the request goes again (the caller does it once)."""
        if self.posted is None or response.status_code != 400:
            return False
        if not is_not_initialized_refusal(400, response.headers.get("content-type"), await response.aread(), limits):
            return False
        await self.posted.wait()
        return self.accepted
