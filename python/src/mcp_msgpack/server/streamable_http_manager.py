"""The Streamable HTTP endpoint for an SDK server, on both wires: the SDK's session manager with our transport.
The Starlette app around it, `streamable_http_app(server)`, is `mcp_msgpack.server.app`'s."""

from __future__ import annotations

from ..shared.sdk_compat import SESSION_LOOP_SERVER, require_http_server

require_http_server("the Streamable HTTP session manager")  # before the SDK internals below: a clear error on an SDK without them

from http import HTTPStatus
from typing import Any
from uuid import uuid4

import anyio
from anyio.abc import TaskStatus
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INTERNAL_ERROR
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..wire import ReceiveLimits
from .content_coding import CompressionOption, coded_send, compression_policy, decoded_request, end_coded_send
from .decode_budget import DecodeAdmission, process_budget
from .replies import SESSION_NOT_FOUND, RequestBodyLimit, accept_of, error_response, prefers_msgpack, with_vary
from ..shared.encodings import check_encoding
from .host_check import HostCheck
from .streamable_http import HOLD_INTERVAL, MsgpackStreamableHTTPServerTransport, reply_streams_for
from .streamable_http_sdk_lines import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_NEGOTIATED_VERSION,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    HANDSHAKE_PROTOCOL_VERSIONS,
    MANAGER_ADMITS_SESSIONS,
    MANAGER_OPTIONS,
    MCP_PROTOCOL_VERSION_HEADER,
    IdleClock,
    requestor_of,
    serve_stateful_request,
)

if not SESSION_LOOP_SERVER:  # 2.x: the 2026-07-28 per-request path (1.x speaks no revision past 2025-11-25)
    from .streamable_http_modern import handle_modern_msgpack_request, is_modern_revision


INITIALIZATION_DEADLINE = 10.0
"""Seconds a session's client has to send `notifications/initialized` after `initialize` (SPEC 9.4; the TS
server's 10 s)."""

TRANSPORT_ERROR = -32000


class MsgpackStreamableHTTPSessionManager(StreamableHTTPSessionManager):
    """`StreamableHTTPSessionManager` whose sessions speak msgpack-v1 besides JSON (SPEC 9).

    Extra options: `native_bytes` (confirm the extension to clients that offer it, SPEC 8; default True),
    `limits` (SPEC 4's receive limits for MessagePack bodies), `encoding` (a one-body reply's encoding when
    the client reads either, SPEC 9.6: 'cheapest-cpu', 'smallest', 'json'), `reply_streams` ('when-needed'
    holds a one-request POST's reply until its first message, SPEC 9.6.2; 'always'; default 'when-needed',
    'always' with an event store) and `hold_interval` (seconds, 15: the hold, and a stream's keep-alives).
    Everything else is the SDK's.
    """

    def __init__(
        self,
        app: Any,
        event_store: EventStore | None = None,
        json_response: bool = False,
        stateless: bool = False,
        security_settings: TransportSecuritySettings | None = None,
        retry_interval: int | None = None,
        session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
        max_sessions: int | None = DEFAULT_MAX_SESSIONS,
        *,
        native_bytes: bool = True,
        limits: ReceiveLimits | None = None,
        encoding: str = "cheapest-cpu",
        reply_streams: str | None = None,
        hold_interval: float = HOLD_INTERVAL,
        compression: CompressionOption = "auto",
    ) -> None:
        # Host and Origin are checked here, for every path (host_check.py); the SDK's own check is turned off.
        self.host_check = HostCheck(security_settings)
        if not MANAGER_ADMITS_SESSIONS:  # mcp 1.24, 2.0-2.1: the session cap is ours (serve_stateful_request)
            if max_sessions is not None and max_sessions <= 0:
                raise ValueError("max_sessions must be a positive number of sessions or None")
            if stateless:  # 2.0-2.1 refuse an idle timeout in stateless mode (unused there)
                session_idle_timeout = None
            IdleClock(session_idle_timeout)  # a bad timeout refused here, as 2.2's manager does (1.24's checks none)
        options: dict[str, Any] = {
            "session_idle_timeout": session_idle_timeout, "max_request_body_size": max_request_body_size,
            "max_sessions": max_sessions,
        }
        super().__init__(
            app, event_store, json_response, stateless, TransportSecuritySettings(enable_dns_rebinding_protection=False),
            retry_interval, **{name: value for name, value in options.items() if name in MANAGER_OPTIONS},
        )
        for name, value in options.items():  # the SDK's where it takes them, else ours to keep (1.24, 2.0-2.1)
            setattr(self, name, value)
        if not hasattr(self, "_session_owners"):  # 1.24: who opened each session (none there: no authorization_context)
            self._session_owners: dict[str, Any] = {}
        self.native_bytes = native_bytes
        self.limits = limits or ReceiveLimits()
        self.encoding = check_encoding(encoding)
        self.reply_streams = reply_streams_for(reply_streams, event_store)
        self.hold_interval = hold_interval
        self.compression = compression_policy(compression)
        # Bodies served at once draw on one allowance for the process (decode_budget.py), then the body limit.
        self.asgi_app = DecodeAdmission(  # type: ignore[assignment]  # the same ASGI interface
            RequestBodyLimit(self._handle_request, max_request_body_size),
            process_budget(max_request_body_size, self.limits), max_request_body_size, self.limits,
        )
        self.initialization_deadline = INITIALIZATION_DEADLINE

    def _new_transport(self, session_id: str | None) -> MsgpackStreamableHTTPServerTransport:
        return MsgpackStreamableHTTPServerTransport(
            mcp_session_id=session_id,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store if session_id else None,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval if session_id else None,
            idle_timeout=self.session_idle_timeout if session_id else None,
            native_bytes=self.native_bytes,
            limits=self.limits,
            encoding=self.encoding,
            reply_streams=self.reply_streams,
            hold_interval=self.hold_interval,
        )

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._task_group is None:
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
        send = coded_send(scope, with_vary(send), self.compression)
        token = prefers_msgpack.set(accept_of(scope).prefers_msgpack)
        try:
            refused = self.host_check.refusal(scope)
            if refused is not None:
                data = None if refused.reason is None else {"reason": refused.reason}
                await error_response(refused.status, TRANSPORT_ERROR, refused.message, data=data)(scope, receive, send)
                return
            decoded = await decoded_request(scope, receive, self.compression, self.max_request_body_size)
            if isinstance(decoded, Response):
                await decoded(scope, receive, send)
                return
            scope, receive = decoded
            version = Headers(scope=scope).get(MCP_PROTOCOL_VERSION_HEADER)
            # A revision at or past the first modern one goes to the per-request path (SPEC 9.5); any other
            # unknown one stays on the session path, whose transport answers 400 -32000 (9.4), as the TS server.
            if (
                not SESSION_LOOP_SERVER and version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
                and is_modern_revision(version)
            ):
                await handle_modern_msgpack_request(
                    self.app, self.security_settings, self.json_response, self._lifespan_state, scope, receive, send,
                    limits=self.limits, supports_native=self.native_bytes, encoding=self.encoding,
                    hold_interval=self.hold_interval,
                )
            elif self.stateless:
                # An unsupported version is refused by the request's transport (400 -32000), never served under.
                hint = version if version in HANDSHAKE_PROTOCOL_VERSIONS else None
                await self._handle_stateless_request(hint, scope, receive, send)
            elif (refusal := self._session_refusal(scope)) is not None:
                await refusal(scope, receive, send)
            else:
                await self._handle_stateful_request(scope, receive, send)
        finally:
            end_coded_send(send)
            prefers_msgpack.reset(token)

    def _session_refusal(self, scope: Scope) -> Any:
        """The SDK's 404 (unknown session, another credential's session) and 503 (session cap), on the wire
        the request prefers; the SDK's own checks run after these and find nothing left to refuse."""
        session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
        user = scope.get("user")
        requestor = requestor_of(user)
        if session_id is not None:
            if not session_id.strip():
                return error_response(HTTPStatus.BAD_REQUEST, TRANSPORT_ERROR, "Bad Request: an empty Mcp-Session-Id")
            if session_id not in self._server_instances or requestor != self._session_owners.get(session_id):
                return error_response(HTTPStatus.NOT_FOUND, SESSION_NOT_FOUND, "Session not found")
            return None
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            return error_response(
                HTTPStatus.SERVICE_UNAVAILABLE, INTERNAL_ERROR, "Too many open sessions",
                data={"reason": "too-many-sessions"}, headers={"retry-after": "1"},
            )
        return None

    async def _handle_stateful_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if MANAGER_ADMITS_SESSIONS:  # mcp 1.30, 2.2+: the SDK's, which opens a session through `_admit_session`
            await super()._handle_stateful_request(scope, receive, send)
        else:  # mcp 1.24, 2.0-2.1: the SDK's would open the session on its own transport
            await serve_stateful_request(self, scope, receive, send)

    def _admit_session(self, requestor: Any) -> MsgpackStreamableHTTPServerTransport | None:
        if self.max_sessions is not None and len(self._server_instances) >= self.max_sessions:
            return None
        transport = self._new_transport(uuid4().hex)
        assert transport.mcp_session_id is not None
        if requestor is not None:
            self._session_owners[transport.mcp_session_id] = requestor
        self._server_instances[transport.mcp_session_id] = transport
        if self._task_group is not None:
            self._task_group.start_soon(self._end_if_never_initialized, transport)
        return transport

    async def _end_if_never_initialized(self, transport: MsgpackStreamableHTTPServerTransport) -> None:
        """SPEC 9.4: a session whose client has not sent `notifications/initialized` within the deadline after
        `initialize` is ended (its id then 404), as the TS server ends it; the SDK's kept it for its idle
        timeout (30 minutes)."""
        await anyio.sleep(self.initialization_deadline)
        if transport.client_initialized or transport.is_terminated:
            return
        session_id = transport.mcp_session_id
        await transport.terminate()
        if session_id is not None:
            self._server_instances.pop(session_id, None)
            self._session_owners.pop(session_id, None)

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Every request through `asgi_app` (the decode budget, the body limit, then `_handle_request`), on 1.24
        too, whose manager dispatched here directly."""
        await self.asgi_app(scope, receive, send)

    async def _handle_stateless_request(
        self, protocol_version_hint: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A fresh transport and server loop for one request, as the SDK's stateless mode runs them."""
        transport = self._new_transport(None)

        async def serve(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            async with transport.connect() as (read_stream, write_stream):
                task_status.started()
                if SESSION_LOOP_SERVER:  # 1.x: the server's own loop, as the SDK's 1.x manager runs it
                    app: Any = self.app  # 1.x's Server (typed here by the installed line's)
                    await app.run(read_stream, write_stream, app.create_initialization_options(), stateless=True)
                    return
                from mcp.server.connection import Connection
                from mcp.server.runner import serve_connection
                from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
                from mcp.shared.transport_context import TransportContext

                dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
                    read_stream,
                    write_stream,
                    inline_methods=frozenset({"initialize"}),
                    transport_builder=lambda _md: TransportContext(kind="streamable-http", can_send_request=False),
                )
                connection = Connection.from_envelope(protocol_version_hint or DEFAULT_NEGOTIATED_VERSION, None, None)
                await serve_connection(self.app, dispatcher, connection=connection, lifespan_state=self._lifespan_state)

        assert self._task_group is not None
        try:
            await self._task_group.start(serve)
            await transport.handle_request(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):
                await transport.terminate()

