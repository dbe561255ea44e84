"""Held replies with an event store (SPEC 9.6.2 rules 3-5): the store decides, at a held reply's first message.

The SDK's session router gives each outgoing message to the event store before it reaches the transport, so
the store is where a held reply's form is settled: its final response first is not stored (a one-body reply is
never resumed, rule 3); anything else first stores the stream's priming event, then the message, so the
stream opens primed and resumable (rule 4), as it does when the hold interval passes first (rule 5). A reply
whose client went away (rule 6) stores nothing more.
"""

from __future__ import annotations

import anyio
from mcp.server.streamable_http import EventCallback, EventId, EventStore, StreamId
from mcp.types import JSONRPCError, JSONRPCMessage, JSONRPCResponse

from ..shared.sdk_compat import message_model
from .streamable_http_sdk_lines import SSEEvent

HELD, BODY, STREAM, GONE = "held", "body", "stream", "gone"


class _Held:
    __slots__ = ("state", "primed", "priming", "needs_priming")

    def __init__(self, needs_priming: bool) -> None:
        self.state = HELD
        self.primed = anyio.Event()
        self.priming: SSEEvent | None = None
        self.needs_priming = needs_priming


class HoldingEventStore(EventStore):
    """The application's event store, seen through the held replies of one session transport."""

    def __init__(self, inner: EventStore, retry_interval: int | None) -> None:
        self.inner = inner
        self.retry_interval = retry_interval
        self._held: dict[StreamId, _Held] = {}

    def hold(self, stream_id: StreamId, *, needs_priming: bool) -> None:
        self._held[stream_id] = _Held(needs_priming)

    async def open(self, stream_id: StreamId) -> SSEEvent | None:
        """The held reply becomes a stream (if its first message did not settle it already): its priming event."""
        held = self._held[stream_id]
        if held.state == HELD:
            await self._prime(held, stream_id)
        await held.primed.wait()
        return held.priming

    def settled_as_body(self, stream_id: StreamId) -> bool:
        held = self._held.get(stream_id)
        return held is not None and held.state == BODY

    def abandon(self, stream_id: StreamId) -> None:
        held = self._held.get(stream_id)
        if held is not None and held.state in (HELD, BODY):
            held.state = GONE

    def release(self, stream_id: StreamId) -> None:
        self._held.pop(stream_id, None)

    async def _prime(self, held: _Held, stream_id: StreamId) -> None:
        held.state = STREAM  # before the await: whoever comes next waits for `primed`
        try:
            if held.needs_priming:
                event_id = await self.inner.store_event(stream_id, None)
                held.priming = {"id": event_id, "data": ""}
                if self.retry_interval is not None:
                    held.priming["retry"] = self.retry_interval
        finally:
            held.primed.set()

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        held = self._held.get(stream_id)
        if held is None or message is None:
            return await self.inner.store_event(stream_id, message)
        final = isinstance(message_model(message), JSONRPCResponse | JSONRPCError)  # 1.x: the RootModel around it
        if held.state == HELD and final:
            held.state = BODY
            return None  # type: ignore[return-value]  # one body, never stored (rule 3)
        if held.state in (BODY, GONE):
            return None  # type: ignore[return-value]
        if held.state == HELD:
            await self._prime(held, stream_id)
        await held.primed.wait()
        return await self.inner.store_event(stream_id, message)

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        return await self.inner.replay_events_after(last_event_id, send_callback)

