"""The names the Streamable HTTP server side takes from the SDK, wherever this SDK line keeps them (mcp 2.3+, or
1.x: `shared/sdk_compat.py`'s header lists each difference). Chosen by what the SDK has, never its version.

On 1.x a `SessionMessage` and an `EventMessage` carry the `JSONRPCMessage` RootModel; the transport works on
the inner model (`message_model`) and hands the SDK `sdk_message(model)`, the form the SDK's own code holds."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import mcp.server.streamable_http as sdk_transport
import mcp.server.streamable_http_manager as sdk_manager
from starlette.types import Receive, Scope, Send

from ..shared.sdk_compat import SESSION_LOOP_SERVER, WRAPPED_MESSAGES, types

_MESSAGE: Any = types.JSONRPCMessage


def _first(*places: tuple[str, str]) -> Any:
    for module, name in places:
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            continue
        if hasattr(loaded, name):
            return getattr(loaded, name)
    raise ImportError(f"none of {places} in the installed mcp SDK")


MCP_PROTOCOL_VERSION_HEADER: str = _first(
    ("mcp.shared.inbound", "MCP_PROTOCOL_VERSION_HEADER"), ("mcp.server.streamable_http", "MCP_PROTOCOL_VERSION_HEADER")
)
HANDSHAKE_PROTOCOL_VERSIONS: list[str] = list(
    _first(("mcp_types.version", "HANDSHAKE_PROTOCOL_VERSIONS"), ("mcp.shared.version", "SUPPORTED_PROTOCOL_VERSIONS"))
)
DEFAULT_NEGOTIATED_VERSION: str = types.DEFAULT_NEGOTIATED_VERSION
SSEEvent = dict[str, Any]
"""An SSE event as the SDK's writer takes it (`mcp.server.streamable_http.SSEEvent` from 1.30 on)."""
REQUEST_STREAM_BUFFER_SIZE: int = getattr(sdk_transport, "REQUEST_STREAM_BUFFER_SIZE", 16)
"""Messages a request's stream holds before its writer waits (the SDK's 16; 1.24 names none)."""


def _dates_at_least(version: str, floor: str) -> bool:
    """1.x's comparison: revisions are dates (YYYY-MM-DD), compared as strings, as 1.x's own transport does."""
    return version >= floor


try:
    is_version_at_least: Callable[[str, str], bool] = _first(("mcp_types.version", "is_version_at_least"))
    """2.x's helper (an unknown revision is never "at least"), or, on 1.x, its string comparison."""
except ImportError:  # 1.x
    is_version_at_least = _dates_at_least


def sdk_message(model: Any) -> Any:
    """A request/notification/response/error model as the SDK's `SessionMessage.message` holds it on this line."""
    return _MESSAGE(model) if WRAPPED_MESSAGES and not isinstance(model, _MESSAGE) else model


DEFAULT_MAX_REQUEST_BODY_SIZE: int = getattr(sdk_manager, "DEFAULT_MAX_REQUEST_BODY_SIZE", 4 * 1024 * 1024)
"""The SDK's 4 MiB (1.24 has no limit of its own; ours, `RequestBodyLimit`, applies on every line)."""
DEFAULT_MAX_SESSIONS: int | None = getattr(sdk_manager, "DEFAULT_MAX_SESSIONS", 10_000)
DEFAULT_SESSION_IDLE_TIMEOUT: float | None = getattr(sdk_manager, "DEFAULT_SESSION_IDLE_TIMEOUT", 30 * 60)

TRANSPORT_IDLE_TIMEOUT = "idle_timeout" in inspect.signature(sdk_transport.StreamableHTTPServerTransport.__init__).parameters
"""Whether the SDK's transport ends an idle session (1.30, 2.3; not 1.24, whose sessions live until DELETE)."""

MANAGER_OPTIONS = frozenset(inspect.signature(sdk_manager.StreamableHTTPSessionManager.__init__).parameters)
"""The options the SDK's session manager takes (1.24: no idle timeout, body limit nor session cap)."""


class StreamableHTTPASGIApp:
    """The endpoint: every request to the session manager (2.3's `StreamableHTTPASGIApp`; 1.x keeps its own in
    FastMCP's server module)."""

    def __init__(self, session_manager: Any) -> None:
        self.session_manager = session_manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.session_manager.handle_request(scope, receive, send)


def endpoint_class() -> Callable[[Any], Any]:
    """The SDK's endpoint class where it has one, else ours (the same one method)."""
    return getattr(sdk_manager, "StreamableHTTPASGIApp", StreamableHTTPASGIApp)


__all__ = [
    "DEFAULT_MAX_REQUEST_BODY_SIZE",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_NEGOTIATED_VERSION",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MANAGER_OPTIONS",
    "MCP_PROTOCOL_VERSION_HEADER",
    "REQUEST_STREAM_BUFFER_SIZE",
    "SSEEvent",
    "SESSION_LOOP_SERVER",
    "TRANSPORT_IDLE_TIMEOUT",
    "is_version_at_least",
    "sdk_message",
]
