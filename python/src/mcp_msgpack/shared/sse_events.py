"""Server-sent events read from a `text/event-stream` body's lines (the WHATWG rules MCP's SSE replies follow),
for the HTTP client of the SDK lines before 2.3, which reads JSON servers' SSE itself."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SseEvent:
    data: str
    id: str | None = None
    retry: int | None = None
    event: str = "message"


async def sse_events(lines: AsyncIterable[str], max_event_size: int | None) -> AsyncIterator[SseEvent]:
    """The events of a stream, one per blank-line-ended block with data or an id (a priming event has only an
    id). An event whose data passes `max_event_size` characters raises ValueError: the stream ends there."""
    data: list[str] = []
    size = 0
    fields: dict[str, str] = {}
    retry: int | None = None
    async for line in lines:
        if not line:
            if data or "id" in fields:
                yield SseEvent("\n".join(data), fields.get("id"), retry, fields.get("event", "message"))
            data, size, fields, retry = [], 0, {}, None
            continue
        if line.startswith(":"):
            continue  # a comment (keep-alive)
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            size += len(value) + 1
            if max_event_size is not None and size > max_event_size:
                raise ValueError(f"an SSE event over {max_event_size} bytes")
            data.append(value)
        elif name in ("event", "id"):
            fields[name] = value
        elif name == "retry" and value.isdigit():
            retry = int(value)
    if data:
        yield SseEvent("\n".join(data), fields.get("id"), retry, fields.get("event", "message"))
