"""What the SDK's Streamable HTTP server lacks on the older 2.x lines, each piece chosen by what the installed
SDK has (feature detection; `shared/sdk_compat.py`'s header lists them by line): session admission and the
idle clock (2.2+), the transport's `_handle_request` split (2.2+), the modern entry's rejection helpers (2.1+).
Where the SDK has a piece, its own is used and the code here is never reached."""

from __future__ import annotations

import inspect
import logging
import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final

import anyio
import mcp.server._streamable_http_modern as sdk_modern
import mcp.server.streamable_http_manager as sdk_manager
import mcp.shared.inbound as sdk_inbound
from anyio.abc import TaskStatus
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.runner import serve_loop
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp_types import INTERNAL_ERROR, INVALID_REQUEST, ErrorData, JSONRPCError, UnsupportedProtocolVersionErrorData
from mcp_types.jsonrpc import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from .replies import SESSION_NOT_FOUND, error_response

logger = logging.getLogger(__name__)

Handler = Callable[[Scope, Receive, Send], Awaitable[None]]

# --- defaults (2.2+ names them; 2.0-2.1 had no session cap and no idle timeout by default) -----------------

DEFAULT_SESSION_IDLE_TIMEOUT: Final[float] = float(getattr(sdk_manager, "DEFAULT_SESSION_IDLE_TIMEOUT", 30 * 60))
DEFAULT_MAX_SESSIONS: Final[int] = int(getattr(sdk_manager, "DEFAULT_MAX_SESSIONS", 10_000))

MANAGER_ADMITS_SESSIONS: Final = hasattr(sdk_manager.StreamableHTTPSessionManager, "_admit_session")
"""2.2+: the manager opens a session through `_admit_session` (ours builds our transport there) and takes
`max_sessions`; on 2.0-2.1 it builds the SDK's transport inline, so `serve_stateful_request` opens it."""

TRANSPORT_KEEPS_IDLE_CLOCK: Final = "idle_timeout" in inspect.signature(StreamableHTTPServerTransport.__init__).parameters
"""2.2+: the transport takes `idle_timeout` and times the session itself (`IdleClock` on 2.0-2.1)."""

TRANSPORT_SPLITS_HANDLER: Final = hasattr(StreamableHTTPServerTransport, "_handle_request")
"""2.2+: `handle_request` wraps `_handle_request` (the idle clock around it); 2.0-2.1: it is the handler."""


# --- the 2026-07-28 entry's rejections (2.1+ names them) ---------------------------------------------------


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


# --- the idle clock (2.0-2.1) ------------------------------------------------------------------------------


class IdleClock:
    """2.2's idle rule for a 2.0-2.1 transport: the session ends once no request has been in flight for
    `timeout` seconds (an open GET stream holds it). 2.0-2.1's manager pushed a deadline forward per request
    instead, so a GET stream open past the timeout had its session reaped under it."""

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


# --- opening sessions (2.0-2.1) ----------------------------------------------------------------------------


async def serve_stateful_request(manager: Any, scope: Scope, receive: Receive, send: Send) -> None:
    """A request of a stateful server on 2.0-2.1, in 2.2's order with our transport: a known session's request
    goes to its transport; one without a session id is admitted under the lock (503 at `max_sessions`), its
    session served, and discarded again unless the opening request succeeded. Unknown and foreign session ids
    were refused before this (the manager's `_session_refusal`)."""
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
    user = scope.get("user")
    requestor = authorization_context(user) if isinstance(user, AuthenticatedUser) else None
    async with manager._session_creation_lock:
        transport = manager._admit_session(requestor)
    if transport is None:
        await error_response(
            HTTPStatus.SERVICE_UNAVAILABLE, INTERNAL_ERROR, "Too many open sessions",
            data={"reason": "too-many-sessions"}, headers={"retry-after": "1"},
        )(scope, receive, send)
        return
    await _serve_opening_request(manager, transport, scope, receive, send)


async def _serve_opening_request(manager: Any, transport: Any, scope: Scope, receive: Receive, send: Send) -> None:
    session_id = transport.mcp_session_id
    clock: IdleClock = transport.idle_clock

    async def run_session(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with transport.connect() as (read_stream, write_stream):
            task_status.started()
            try:
                with clock.start():
                    await serve_loop(
                        manager.app, read_stream, write_stream,
                        lifespan_state=manager._lifespan_state, session_id=session_id,
                    )
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
