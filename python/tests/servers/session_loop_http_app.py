"""An mcp 1.x server on this package's Streamable HTTP app (the session-loop line: the SDK's sessions run by
`Server.run`), for tests/test_session_loop_http_server.py.

argv: PORT IMAGE_PATH [--lowlevel | --fastmcp2] [--stateless] [--json-response] [--event-store] [--compression]: a `mcp.server.fastmcp.FastMCP`
server (default), a standalone FastMCP 2.x `fastmcp.FastMCP` (`--fastmcp2`) or a low-level
`mcp.server.lowlevel.Server` with the same tools: `echo`, `read_image` (base64
made by the tool), `read_image_native` (`native_image`: bytes in hand), `counted` (three progress notifications,
then its answer)."""

import base64
import sys
from typing import Any

import mcp.types as types
import uvicorn

from mcp_msgpack import native_image, streamable_http_app

port, image_path = int(sys.argv[1]), sys.argv[2]


def _image() -> bytes:
    with open(image_path, "rb") as f:
        return f.read()


def add_media_tools(server: Any, context_type: Any, **image_tool_options: Any) -> Any:
    """The tools on a FastMCP-style server (the SDK's 1.x FastMCP or the standalone fastmcp 2.x): both take
    `@server.tool(...)` and inject the context by its annotation. `image_tool_options` turns off the copy of a
    returned model into structuredContent (as text), which each names its own way."""

    @server.tool()
    def echo(text: str) -> str:
        """Returns its argument."""
        return text

    @server.tool(**image_tool_options)
    def read_image() -> types.ImageContent:
        return types.ImageContent(type="image", data=base64.b64encode(_image()).decode(), mimeType="image/png")

    @server.tool(**image_tool_options)
    def read_image_native() -> types.ImageContent:
        return native_image(_image(), "image/png")

    @server.tool()
    async def counted(ctx: context_type) -> str:  # type: ignore[valid-type]
        """Reports progress three times, then answers: a reply that streams."""
        for step in range(3):
            await ctx.report_progress(step + 1, 3)
        return "counted"

    return server


def fastmcp_server() -> Any:
    from mcp.server.fastmcp import Context, FastMCP

    return add_media_tools(FastMCP("session-loop-media"), Context, structured_output=False)


def fastmcp2_server() -> Any:
    """The standalone `fastmcp` package's server (2.x, on mcp 1.x): the app takes it as it is, through the
    low-level server it keeps (`_mcp_server`), as for the SDK's own FastMCP."""
    from fastmcp import Context, FastMCP

    return add_media_tools(FastMCP("fastmcp2-media"), Context, output_schema=None)


def lowlevel_server() -> Any:
    from mcp.server.lowlevel import Server

    server: Any = Server("session-loop-lowlevel")
    empty = {"type": "object", "properties": {}}

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(name="echo", inputSchema={"type": "object", "properties": {"text": {"type": "string"}}}),
            types.Tool(name="read_image", inputSchema=empty),
            types.Tool(name="read_image_native", inputSchema=empty),
            types.Tool(name="counted", inputSchema=empty),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> list[Any]:
        if name == "echo":
            return [types.TextContent(type="text", text=arguments["text"])]
        if name == "read_image":
            return [types.ImageContent(type="image", data=base64.b64encode(_image()).decode(), mimeType="image/png")]
        if name == "read_image_native":
            return [native_image(_image(), "image/png")]
        if name == "counted":
            context = server.request_context
            token = context.meta.progressToken if context.meta else None
            for step in range(3):
                if token is not None:
                    await context.session.send_progress_notification(token, step + 1, 3, related_request_id=context.request_id)
            return [types.TextContent(type="text", text="counted")]
        raise ValueError(f"unknown tool {name}")

    return server


class ListEventStore:
    """An in-memory event store: every event in order, replayed per stream."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []

    async def store_event(self, stream_id: str, message: object) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        from mcp.server.streamable_http import EventMessage

        stream = next((s for e, s, _ in self.events if e == last_event_id), None)
        after = False
        for event_id, stream_id, message in self.events:
            if after and stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))  # type: ignore[arg-type]
            after = after or event_id == last_event_id
        return stream


if __name__ == "__main__":
    if "--lowlevel" in sys.argv:
        server = lowlevel_server()
    else:
        server = fastmcp2_server() if "--fastmcp2" in sys.argv else fastmcp_server()
    options: dict[str, Any] = {"event_store": ListEventStore()} if "--event-store" in sys.argv else {}
    if "--compression" in sys.argv:  # code replies for every client that asks, loopback too (SPEC 10)
        options["compression"] = True
    app = streamable_http_app(
        server, stateless_http="--stateless" in sys.argv, json_response="--json-response" in sys.argv, **options
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
