"""`streamable_http_app(server)`: `server.streamable_http_app()` with msgpack-v1 added: the same Starlette app
(one route, the session manager's lifespan), the same options, loopback Host/Origin checks by default."""

from __future__ import annotations

from ..shared.sdk_compat import require_http_server

require_http_server("streamable_http_app")  # before the SDK internals below: a clear error on an SDK without them

from typing import Any

from mcp.server.streamable_http import EventStore
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

from ..wire import ReceiveLimits
from .content_coding import CompressionOption
from .streamable_http import HOLD_INTERVAL
from .streamable_http_sdk_lines import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    endpoint_class,
)
from .streamable_http_manager import INITIALIZATION_DEADLINE, MsgpackStreamableHTTPSessionManager

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def loopback_security() -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection for a loopback server: Host and Origin must name loopback."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )



def streamable_http_app(
    server: Any,
    *,
    streamable_http_path: str = "/mcp",
    json_response: bool = False,
    stateless_http: bool = False,
    event_store: EventStore | None = None,
    retry_interval: int | None = None,
    max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    transport_security: TransportSecuritySettings | None = None,
    host: str = "127.0.0.1",
    native_bytes: bool = True,
    limits: ReceiveLimits | None = None,
    encoding: str = "cheapest-cpu",
    reply_streams: str | None = None,
    hold_interval: float = HOLD_INTERVAL,
    initialization_deadline: float = INITIALIZATION_DEADLINE,
    debug: bool = False,
    compression: CompressionOption = "auto",
) -> Starlette:
    """The Starlette app of `server.streamable_http_app(...)` on both wires (an `MCPServer` or a low-level
    `Server`). Mount it, or run it with uvicorn. Without `transport_security`, every request that arrives on a
    loopback address must name loopback in Host and Origin (403 otherwise), whatever `host` the server is
    bound to; `transport_security` replaces that with its lists, for every request (host_check.py).
    `initialization_deadline`: seconds a session's client has to send `notifications/initialized`.
    `compression`: content codings (SPEC 10; README, "Compression"): 'auto' (default) codes replies for clients
    that ask unless they arrived on a loopback address, True for every client that asks, False never (and
    coded request bodies are then refused 415), or a CompressionPolicy (its `favor`: 'bytes' by default, Brotli 5
    for replies of 8-64 KiB where the client takes br; 'cpu' keeps zstd first)."""
    del host  # kept for the SDK's signature: the check follows where a request arrives, not the bind address
    # An `MCPServer` (2.x) or `mcp.server.fastmcp.FastMCP` (1.x) wraps the low-level `Server` the sessions run.
    lowlevel = getattr(server, "_lowlevel_server", None) or getattr(server, "_mcp_server", server)
    manager = MsgpackStreamableHTTPSessionManager(
        app=lowlevel,
        event_store=event_store,
        json_response=json_response,
        stateless=stateless_http,
        security_settings=transport_security,
        retry_interval=retry_interval,
        session_idle_timeout=session_idle_timeout,
        max_request_body_size=max_request_body_size,
        max_sessions=max_sessions,
        native_bytes=native_bytes,
        limits=limits,
        encoding=encoding,
        reply_streams=reply_streams,
        hold_interval=hold_interval,
        compression=compression,
    )
    manager.initialization_deadline = initialization_deadline
    app = Starlette(
        debug=debug,
        routes=[Route(streamable_http_path, endpoint=endpoint_class()(manager))],
        lifespan=lambda _app: manager.run(),
    )
    app.state.session_manager = manager
    return app
