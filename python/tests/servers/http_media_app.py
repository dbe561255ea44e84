"""A Python MCPServer with a media tool on this package's Streamable HTTP app (run by the HTTP tests and bench).

argv: PORT IMAGE_PATH [--json-sdk] [--stateless] [--json-response] [--event-store] [--no-host-check] [--option=VALUE ...]: the
SDK's own app instead of ours (for comparison); the SDK's stateless mode (a fresh server per request); one body
per reply; an in-memory event store (what it holds is the `stored` tool's answer); no Host/Origin check; our app's `encoding`, `reply_streams`, `hold_interval`, `max_sessions`, `session_idle_timeout`... (e.g. `--encoding=smallest`). Importable: the stdio
bench serves the same tools."""

import base64
import sys
from pathlib import Path

import mcp_types

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ImageContent

from mcp_msgpack import streamable_http_app

image_path = ""  # set from argv below, or by a module that imports the server
server = MCPServer("python-media")
# Media tools return content only: mcp 2.0's MCPServer also puts an `-> ImageContent` return in
# structuredContent (its base64 a second time, as a str); 2.1+ leaves content blocks out of it.
media_tool = server.tool(structured_output=False)
TEXT_64K = "The quick brown fox jumps over the lazy dog. " * 1456
RECORDS = [{"id": i, "name": f"record {i}", "tags": ["a", "b"], "score": i * 1.5, "ok": i % 2 == 0} for i in range(600)]


@server.tool()
def echo(text: str) -> str:
    """Returns its argument."""
    return text


@server.tool()
def small() -> str:
    return "ok"


@server.tool()
def text() -> str:
    return TEXT_64K


@server.tool()
def records() -> dict:
    """About 50 KB of records (JSON text)."""
    return {"records": RECORDS}


@server.tool()
async def counted(ctx: Context) -> str:
    """Reports progress three times, then answers: a reply that streams."""
    for step in range(3):
        await ctx.report_progress(step + 1, 3)
    return "counted"


@server.tool()
async def slow(seconds: float) -> str:
    """Answers after `seconds`: a request that stays in flight."""
    import anyio

    await anyio.sleep(seconds)
    return "slow"


@server.tool()
async def changed(ctx: Context) -> str:
    """Tells `subscriptions/listen` subscribers the tool list changed."""
    await ctx.notify_tools_changed()
    return "changed"


class ListEventStore:
    """An in-memory event store (the SDK ships none): every event in order, replayed per stream."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        from mcp.server.streamable_http import EventMessage

        stream = next((s for e, s, _ in self.events if e == last_event_id), None)
        after = False
        for event_id, stream_id, message in self.events:
            if after and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream


event_store = ListEventStore()


@server.tool()
def stored() -> str:
    """What the event store holds: one line per event, `stream-id kind` (prime, a method, or answer)."""
    kinds = []
    for _, stream_id, message in event_store.events:
        kind = "prime" if message is None else getattr(message, "method", None) or "answer"
        kinds.append(f"{stream_id} {kind}")
    return "\n".join(kinds)


@media_tool
def read_image() -> ImageContent:
    with open(image_path, "rb") as f:
        return ImageContent(type="image", data=base64.b64encode(f.read()).decode(), mimeType="image/png")


@media_tool
def read_image_native() -> ImageContent:
    """The same file as `native_image` (bytes in hand, no base64 written by the tool)."""
    from mcp_msgpack import native_image

    with open(image_path, "rb") as f:
        return native_image(f.read(), "image/png")


@media_tool
async def read_image_native_later(ctx: Context, seconds: float = 0) -> ImageContent:
    """Progress first (the reply becomes a stream), then the file as `native_image` after `seconds`."""
    import anyio

    await ctx.report_progress(1, 2)
    await anyio.sleep(seconds)
    return read_image_native()


@media_tool
async def read_image_native_slow(seconds: float) -> ImageContent:
    """The file as `native_image` after `seconds`: a held reply its client may leave."""
    import anyio

    await anyio.sleep(seconds)
    return read_image_native()


@server.tool()
def held_media() -> int:
    """How many media are held or set aside in this process (shared/held_media.py, shared/placeholders.py): 0
    when nothing leaks."""
    import gc

    from mcp_msgpack.shared.held_media import held_count
    from mcp_msgpack.shared.placeholders import ASIDE

    gc.collect()  # connections that ended release theirs as they are collected
    return held_count() + len(ASIDE._held)


sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or imported by a test
from sampling_tool import add_sampled_image_digest  # noqa: E402

add_sampled_image_digest(server, Context, mcp_types)


if __name__ == "__main__":
    port, image_path = int(sys.argv[1]), sys.argv[2]
    stateless = "--stateless" in sys.argv
    json_response = "--json-response" in sys.argv
    options: dict = {"event_store": event_store} if "--event-store" in sys.argv else {}
    if "--spy-base64" in sys.argv:  # a `base64_calls` tool counting the process's base64 (base64_spy.py)
        import base64_spy

        base64_spy.register(server)
    for arg in sys.argv[3:]:
        name, sep, value = arg[2:].partition("=")
        if sep and name != "head-timeout":
            floats = ("hold-interval", "initialization-deadline", "session-idle-timeout")
            options[name.replace("-", "_")] = float(value) if name in floats else int(value) if name == "max-sessions" else value
    if "--no-host-check" in sys.argv:  # DNS-rebinding protection off, for every request (host_check.py)
        from mcp.server.transport_security import TransportSecuritySettings

        options["transport_security"] = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    if "compression" in options:  # --compression=true|false|auto (SPEC 10)
        options["compression"] = {"true": True, "false": False}.get(options["compression"], options["compression"])
    if "--json-sdk" in sys.argv:
        app = server.streamable_http_app(stateless_http=stateless, json_response=json_response)
    else:
        app = streamable_http_app(server, stateless_http=stateless, json_response=json_response, **options)
    serve: dict = {}
    head_timeout = next((float(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--head-timeout=")), None)
    if head_timeout is not None:
        from mcp_msgpack.server.connection_deadlines import head_deadline_protocol

        serve["http"] = head_deadline_protocol(head_timeout)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", **serve)
