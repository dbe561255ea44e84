"""The Streamable HTTP server's differences between the SDK lines it runs on (1.24-1.x on the SDK's session loop,
`SESSION_LOOP_SERVER`; every 2.x), each chosen by what the installed SDK has, never its version
(`shared/sdk_compat.py`'s header lists them by line). Where the SDK has a piece, its own is used and the code
here is never reached:

- the names the server side takes from the SDK, wherever its line keeps them (`MCP_PROTOCOL_VERSION_HEADER`,
  the handshake revisions, the defaults, `StreamableHTTPASGIApp`...);
- on 1.x a `SessionMessage` and an `EventMessage` carry the `JSONRPCMessage` RootModel: the transport works on
  the inner model (`message_model`) and hands the SDK `sdk_message(model)`, the form the SDK's own code holds;
- session admission and cap (`_admit_session`, 1.30 and 2.2+) and the transport's idle clock and
  `_handle_request` split (1.30 and 2.2+): on 1.24 and 2.0-2.1 `serve_stateful_request` opens the session and
  `IdleClock` times it;
- the priming event and SSE writer (`PrimingAndSseWriter`, which 1.24 lacks);
- the 2026-07-28 entry's rejection helpers (2.x only; 2.1+ names them).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final

import anyio
import mcp.server.streamable_http as sdk_transport
import mcp.server.streamable_http_manager as sdk_manager
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.auth.middleware import bearer_auth
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, EventMessage, StreamableHTTPServerTransport
from mcp.types import RequestId
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from ..shared.sdk_compat import SESSION_LOOP_SERVER, WRAPPED_MESSAGES, message_model, types
from .replies import SESSION_NOT_FOUND, error_response

logger = logging.getLogger(__name__)

Handler = Callable[[Scope, Receive, Send], Awaitable[None]]

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


# --- names, wherever the line keeps them ---------------------------------------------------------------------

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


# --- defaults (1.30 and 2.2+ name them; 1.24 and 2.0-2.1 had no session cap, 1.24 no body limit) -------------

DEFAULT_MAX_REQUEST_BODY_SIZE: Final[int] = int(getattr(sdk_manager, "DEFAULT_MAX_REQUEST_BODY_SIZE", 4 * 1024 * 1024))
"""The SDK's 4 MiB (1.24 has no limit of its own; ours, `RequestBodyLimit`, applies on every line)."""
DEFAULT_SESSION_IDLE_TIMEOUT: Final[float] = float(getattr(sdk_manager, "DEFAULT_SESSION_IDLE_TIMEOUT", 30 * 60))
DEFAULT_MAX_SESSIONS: Final[int] = int(getattr(sdk_manager, "DEFAULT_MAX_SESSIONS", 10_000))

MANAGER_OPTIONS: Final = frozenset(inspect.signature(sdk_manager.StreamableHTTPSessionManager.__init__).parameters)
"""The options the SDK's session manager takes (1.24: no idle timeout, body limit nor session cap; 2.0-2.1: no
session cap): ours keeps the rest itself and enforces them."""

MANAGER_ADMITS_SESSIONS: Final = hasattr(sdk_manager.StreamableHTTPSessionManager, "_admit_session")
"""1.30, 2.2+: the manager opens a session through `_admit_session` (ours builds our transport there); on 1.24
and 2.0-2.1 it builds the SDK's transport inline, so `serve_stateful_request` opens it."""

TRANSPORT_KEEPS_IDLE_CLOCK: Final = "idle_timeout" in inspect.signature(StreamableHTTPServerTransport.__init__).parameters
"""1.30, 2.2+: the transport takes `idle_timeout` and times the session itself (`IdleClock` on 1.24, 2.0-2.1)."""

TRANSPORT_SPLITS_HANDLER: Final = hasattr(StreamableHTTPServerTransport, "_handle_request")
"""`handle_request` wraps `_handle_request` (the idle clock around it); where not, it is the whole handler."""


class StreamableHTTPASGIApp:
    """The endpoint: every request to the session manager (2.x's `StreamableHTTPASGIApp`; 1.x keeps its own in
    FastMCP's server module)."""

    def __init__(self, session_manager: Any) -> None:
        self.session_manager = session_manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.session_manager.handle_request(scope, receive, send)


def endpoint_class() -> Callable[[Any], Any]:
    """The SDK's endpoint class where it has one, else ours (the same one method)."""
    return getattr(sdk_manager, "StreamableHTTPASGIApp", StreamableHTTPASGIApp)


def requestor_of(user: Any) -> Any:
    """Who opened a session (the SDK's `authorization_context`): only they may use it. 1.24 has none and kept
    no owner: there, as under its own app, a session is anyone's who knows its id."""
    context = getattr(bearer_auth, "authorization_context", None)
    return context(user) if context is not None and isinstance(user, AuthenticatedUser) else None


# --- the 2026-07-28 entry's rejections (2.x only; 2.1+ names them) -------------------------------------------

if not SESSION_LOOP_SERVER:
    import mcp.server._streamable_http_modern as sdk_modern
    import mcp.shared.inbound as sdk_inbound
    from mcp.server.runner import serve_loop
    from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError, UnsupportedProtocolVersionErrorData
    from mcp_types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    def _own_unsupported_version_rejection(requested: str) -> sdk_inbound.InboundLadderRejection | None:
        if requested in MODERN_PROTOCOL_VERSIONS:
            return None
        return sdk_inbound.InboundLadderRejection(
            code=UNSUPPORTED_PROTOCOL_VERSION,
            message="Unsupported protocol version",
            data=UnsupportedProtocolVersionErrorData(
                supported=list(MODERN_PROTOCOL_VERSIONS), requested=requested
            ).model_dump(mode="json"),
        )

    unsupported_protocol_version_rejection: Callable[[str], sdk_inbound.InboundLadderRejection | None] = getattr(
        sdk_inbound, "unsupported_protocol_version_rejection", _own_unsupported_version_rejection
    )
    """The modern entry's `UNSUPPORTED_PROTOCOL_VERSION` rejection for a version it does not serve, else None."""

    INVALID_BODY: Final[JSONRPCError] = getattr(sdk_modern, "_INVALID_BODY", None) or JSONRPCError(
        jsonrpc="2.0",
        id=None,
        error=ErrorData(code=INVALID_REQUEST, message="Body must be a single JSON-RPC request or notification object"),
    )
    """Well-formed data that is not one request or notification (a batch, a posted response, a bad envelope)."""


# --- the idle clock (1.24, 2.0-2.1) --------------------------------------------------------------------------


class IdleClock:
    """2.2's idle rule for a transport without one (1.24, 2.0-2.1): the session ends once no request has been
    in flight for `timeout` seconds (an open GET stream holds it). 2.0-2.1's manager pushed a deadline forward
    per request instead, so a GET stream open past the timeout had its session reaped under it; 1.24's kept a
    session until its DELETE."""

    def __init__(self, timeout: float | None) -> None:
        if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
            raise ValueError("idle_timeout must be a positive, finite number of seconds")
        self.timeout = timeout
        self.scope: anyio.CancelScope | None = None
        self._in_flight = 0

    def start(self) -> anyio.CancelScope:
        """The scope the session's loop runs in, its deadline `timeout` from now (never, without one)."""
        self.scope = anyio.CancelScope()
        if self.timeout is not None:
            self.scope.deadline = anyio.current_time() + self.timeout
        return self.scope

    async def hold(self, handler: Handler, terminate: Callable[[], Awaitable[None]], scope: Scope, receive: Receive, send: Send) -> None:
        """Serves one request with the clock stopped; an expired session is terminated and answers as such."""
        if self.scope is None or self.timeout is None:
            await handler(scope, receive, send)
            return
        if self.scope.cancel_called:
            await terminate()
            await handler(scope, receive, send)
            return
        self._in_flight += 1
        self.scope.deadline = math.inf
        try:
            await handler(scope, receive, send)
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self.scope.deadline = anyio.current_time() + self.timeout


# --- the priming event and the SSE writer (1.24) -------------------------------------------------------------

PRIMING_REVISION = "2025-11-25"
"""The first revision whose clients read a priming event (an SSE event with empty data), as the SDK's."""


class PrimingAndSseWriter:
    """The SDK's `_mint_priming_event` and `_run_sse_writer` of 1.30, for a transport whose SDK lacks them
    (1.24: its SSE writer is a closure inside `_handle_post_request`). A mixin placed after the SDK's transport
    in the MRO, so the SDK's own win wherever they exist."""

    _event_store: Any
    _retry_interval: int | None
    _sse_stream_writers: dict[RequestId, Any]

    async def _mint_priming_event(self, stream_id: str, protocol_version: str) -> SSEEvent | None:
        """The priming cursor for `stream_id`, stored before the request is dispatched (None without an event
        store, or for a client before 2025-11-25, which cannot read an empty event)."""
        if not self._event_store or not is_version_at_least(protocol_version, PRIMING_REVISION):
            return None
        event: SSEEvent = {"id": await self._event_store.store_event(stream_id, None), "data": ""}
        if self._retry_interval is not None:
            event["retry"] = self._retry_interval
        return event

    async def _run_sse_writer(
        self,
        request_id: RequestId,
        sse_stream_writer: MemoryObjectSendStream[SSEEvent],
        request_stream_reader: MemoryObjectReceiveStream[EventMessage],
        priming_event: SSEEvent | None,
    ) -> None:
        """One POST's messages onto its SSE stream until its response (the SDK's event form, `_create_event_data`)."""
        sdk: Any = self
        try:
            async with sse_stream_writer, request_stream_reader:
                if priming_event is not None:
                    await sse_stream_writer.send(priming_event)
                async for event in request_stream_reader:
                    await sse_stream_writer.send(sdk._create_event_data(event))
                    if isinstance(message_model(event.message), types.JSONRPCResponse | types.JSONRPCError):
                        break
        except anyio.ClosedResourceError:
            logger.debug("SSE stream closed")
        finally:
            self._sse_stream_writers.pop(request_id, None)
            await sdk._clean_up_memory_streams(request_id)


# --- opening sessions (1.24, 2.0-2.1) ------------------------------------------------------------------------


async def serve_stateful_request(manager: Any, scope: Scope, receive: Receive, send: Send) -> None:
    """A request of a stateful server whose SDK manager lacks `_admit_session` (1.24, 2.0-2.1), in 2.2's order
    with our transport: a known session's request goes to its transport; one without a session id is admitted
    under the lock (503 at `max_sessions`), its session served, and discarded again unless the opening request
    succeeded. Unknown and foreign session ids were refused before this (the manager's `_session_refusal`)."""
    session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
    if session_id is not None:
        transport = manager._server_instances.get(session_id)
        if transport is None:  # ended between the refusal check and here
            await error_response(HTTPStatus.NOT_FOUND, SESSION_NOT_FOUND, "Session not found")(scope, receive, send)
            return
        await transport.handle_request(scope, receive, send)
        if transport.is_terminated:  # the client's DELETE: forget it now, not when its loop winds down
            await discard_session(manager, session_id, transport)
        return
    async with manager._session_creation_lock:
        transport = manager._admit_session(requestor_of(scope.get("user")))
    if transport is None:  # the cap was reached between the refusal check and here: its 503
        await manager._session_refusal(scope)(scope, receive, send)
        return
    await _serve_opening_request(manager, transport, scope, receive, send)


async def _serve_session(manager: Any, read_stream: Any, write_stream: Any, session_id: str) -> None:
    """One session's server loop: `Server.run` on 1.x (as 1.x's manager runs it), the SDK's `serve_loop` on 2.x."""
    app: Any = manager.app
    if SESSION_LOOP_SERVER:
        await app.run(read_stream, write_stream, app.create_initialization_options(), stateless=False)
    else:
        await serve_loop(app, read_stream, write_stream, lifespan_state=manager._lifespan_state, session_id=session_id)


async def _serve_opening_request(manager: Any, transport: Any, scope: Scope, receive: Receive, send: Send) -> None:
    session_id = transport.mcp_session_id
    clock: IdleClock = transport.idle_clock

    async def run_session(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with transport.connect() as (read_stream, write_stream):
            task_status.started()
            try:
                with clock.start():
                    await _serve_session(manager, read_stream, write_stream, session_id)
            except Exception:
                logger.exception("Session %s crashed", session_id)
            finally:
                await discard_session(manager, session_id, transport)

    established = False
    try:
        await manager._task_group.start(run_session)
        status = await _answered_status(transport.handle_request, scope, receive, send)
        established = status is not None and status < 400
    finally:
        if not established:
            await discard_session(manager, session_id, transport)


async def discard_session(manager: Any, session_id: str, transport: Any) -> None:
    """Forgets the session before any await (its id is 404 from now) and terminates its transport, shielded."""
    manager._server_instances.pop(session_id, None)
    manager._session_owners.pop(session_id, None)
    if not transport.is_terminated:
        with anyio.CancelScope(shield=True):
            await transport.terminate()


async def _answered_status(handler: Handler, scope: Scope, receive: Receive, send: Send) -> int | None:
    status: int | None = None

    async def watching(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    await handler(scope, receive, watching)
    return status


__all__ = [
    "DEFAULT_MAX_REQUEST_BODY_SIZE",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_NEGOTIATED_VERSION",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "HANDSHAKE_PROTOCOL_VERSIONS",
    "MANAGER_ADMITS_SESSIONS",
    "MANAGER_OPTIONS",
    "MCP_PROTOCOL_VERSION_HEADER",
    "REQUEST_STREAM_BUFFER_SIZE",
    "SSEEvent",
    "TRANSPORT_KEEPS_IDLE_CLOCK",
    "TRANSPORT_SPLITS_HANDLER",
    "IdleClock",
    "PrimingAndSseWriter",
    "endpoint_class",
    "is_version_at_least",
    "requestor_of",
    "sdk_message",
    "serve_stateful_request",
]
