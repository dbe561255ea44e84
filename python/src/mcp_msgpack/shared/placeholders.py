"""Bytes set aside under placeholders, on a client only: its transports hold the media of a result that
`call_tool_native` asked for here, under a short string that stands in the SDK's str field until
`call_tool_native` takes the bytes back, a moment later in the same task. Nothing a server sends is ever held
here (`native_image` makes a real value, issue 39), and no outgoing message looks anything up here."""

from __future__ import annotations

import itertools
import threading

PLACEHOLDER_PREFIX = "mcp-msgpack-bytes-"


class _Aside:
    """Bytes held for call_tool_native, under placeholders that stand in the SDK's str fields."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, bytes] = {}
        self._next = itertools.count()

    def hold(self, data: bytes) -> str:
        with self._lock:
            placeholder = f"{PLACEHOLDER_PREFIX}{next(self._next)}"
            self._held[placeholder] = data
        return placeholder

    def __bool__(self) -> bool:
        return bool(self._held)

    def take(self, placeholder: object) -> bytes | None:
        if not isinstance(placeholder, str) or not placeholder.startswith(PLACEHOLDER_PREFIX):
            return None
        with self._lock:
            return self._held.pop(placeholder, None)


ASIDE = _Aside()
