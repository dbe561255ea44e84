"""One 2025-11-25 session's server transport: the SDK's, with msgpack-v1 bodies and frame streams (SPEC 9).

A request that posts JSON and prefers JSON replies goes through the SDK's own code untouched, so JSON clients
get exactly the SDK's behaviour. Any other (a MessagePack body, or an `Accept` that prefers MessagePack) is
decoded by its own `Content-Type` and answered by its `Accept` (SPEC 9.2), with the session's routing, event
store and resumption still the SDK's: its reply is held until its first message (9.6.2), the final response
alone going as one body whose encoding is chosen per reply (9.6: `application/msgpack`, or the SDK's own JSON
body for a client that reads either), anything else opening the frame stream (or SSE for a JSON reader).
"""
from __future__ import annotations

from ..shared.sdk_compat import require_http_server

require_http_server("the Streamable HTTP server transport")  # before the SDK internals below: a clear error on an SDK without them

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream

from mcp.server.streamable_http import (
    LAST_EVENT_ID_HEADER,
    MCP_SESSION_ID_HEADER,
    EventMessage,
    EventStore,
    StreamableHTTPServerTransport,
)
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..wire import ReceiveLimits, WireError, encode_payload
from ..shared import http_media_types as media_types
from ..shared import http_negotiation as negotiation
from ..shared.http_codec import decode_msgpack, encode_json, encode_msgpack, message_dict, session_message
from ..shared.held_media import HeldMedia, HeldMediaGone, RequestHold, serving
from ..shared.media_conversion import base64_to_bin
from ..shared.frame_stream import control_frame, frame
from .held_store import HoldingEventStore
from ..shared.encodings import check_encoding
from .reply_encoding import cheaper_as_msgpack
from .replies import error_data, error_response, prefers_msgpack
from .streamable_http_sdk_lines import (
    DEFAULT_NEGOTIATED_VERSION,
    HANDSHAKE_PROTOCOL_VERSIONS,
    MCP_PROTOCOL_VERSION_HEADER,
    REQUEST_STREAM_BUFFER_SIZE,
    TRANSPORT_KEEPS_IDLE_CLOCK,
    TRANSPORT_SPLITS_HANDLER,
    IdleClock,
    PrimingAndSseWriter,
    SSEEvent,
    is_version_at_least,
    sdk_message,
)
from ..shared.sdk_compat import message_model

logger = logging.getLogger(__name__)

_KEEP_ALIVE = control_frame({})

HOLD_INTERVAL = 15.0
"""Seconds a held reply waits for its first message before it opens the stream, and between a stream's
keep-alives (SPEC 9.3, 9.6.2 rule 5: at most the keep-alive interval and 30 s)."""

REPLY_STREAMS = ("when-needed", "always")

INITIALIZED_WAIT = 1.0
"""Seconds a request in a session waits for `notifications/initialized` before it is refused (SPEC 9.4)."""

MAX_WAITING = 32
"""Most requests of one session waiting for `notifications/initialized` at once; any more are refused at once."""

TRANSPORT_ERROR = -32000

MAX_BATCH_SIZE = 100
"""Most messages in one batch (SPEC 9.4; the TS server's and SDK's number)."""


@dataclass(frozen=True, slots=True)
class ReplyWire:
    """What one POST's headers allow its reply (SPEC 9.2, 9.6): MessagePack or JSON, the per-reply choice,
    and whether the body was MessagePack (a JSON reply then carries `Mcp-Msgpack-Wire`)."""

    msgpack: bool
    replies_any: bool
    body_is_msgpack: bool


def _peek_json(body: bytes) -> list[Any]:
    """The messages of a JSON body, for the session-order check; nothing when the SDK will refuse it."""
    try:
        value = pydantic_core.from_json(body)
        items = value if isinstance(value, list) else [value]
        return [message_model(session_message(item).message) for item in items]
    except (ValueError, ValidationError):
        return []


class _HeldFirst:
    """A request stream read by the SDK's SSE writer, the messages held before the stream opened first."""

    def __init__(self, held: list[EventMessage], reader: MemoryObjectReceiveStream[EventMessage]) -> None:
        self._held = held
        self._reader = reader

    async def __aenter__(self) -> _HeldFirst:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._reader.aclose()

    async def __aiter__(self) -> AsyncIterator[EventMessage]:
        for event in self._held:
            yield event
        async for event in self._reader:
            yield event


def _is_final(message: Any) -> bool:
    """A response or error (the SDK's model, or on 1.x the RootModel around it): the end of a request's stream."""
    return isinstance(message_model(message), JSONRPCResponse | JSONRPCError)


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    """Ends a frame stream's task group when its client goes away (ASGI's http.disconnect)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()


def reply_streams_for(reply_streams: str | None, event_store: EventStore | None) -> str:
    """`reply_streams` (SPEC 9.6.2): 'when-needed' holds a one-request POST's reply until its first message,
    'always' opens the stream at once. Default: 'when-needed', 'always' with an event store (a resumable
    reply is then a stream from its first byte, as the TS package's default). 'when-needed' with an event
    store holds through `HoldingEventStore`."""
    if reply_streams is None:
        return "always" if event_store is not None else "when-needed"
    if reply_streams not in REPLY_STREAMS:
        raise ValueError(f"reply_streams must be one of {REPLY_STREAMS}")
    return reply_streams


class WireAwareSecurity(TransportSecurityMiddleware):
    """The SDK's Host/Origin checks; the body's type is judged by the transport (415, SPEC 9.2), not here."""

    def _validate_content_type(self, content_type: str | None) -> bool:
        return True


class MsgpackStreamableHTTPServerTransport(StreamableHTTPServerTransport, PrimingAndSseWriter):
    """The SDK's transport with msgpack-v1 (the module's docstring). `PrimingAndSseWriter` comes after the SDK's
    class: its two methods serve only where the SDK has none (1.24)."""

    def __init__(
        self,
        mcp_session_id: str | None,
        is_json_response_enabled: bool = False,
        event_store: EventStore | None = None,
        security_settings: TransportSecuritySettings | None = None,
        retry_interval: int | None = None,
        idle_timeout: float | None = None,
        *,
        native_bytes: bool = True,
        limits: ReceiveLimits | None = None,
        encoding: str = "cheapest-cpu",
        reply_streams: str | None = None,
        hold_interval: float = HOLD_INTERVAL,
    ) -> None:
        if TRANSPORT_KEEPS_IDLE_CLOCK:  # mcp 1.30, 2.2+
            super().__init__(
                mcp_session_id, is_json_response_enabled, event_store, security_settings, retry_interval, idle_timeout
            )
        else:  # mcp 1.24, 2.0-2.1: the session's idle clock is ours (streamable_http_sdk_lines.py)
            super().__init__(mcp_session_id, is_json_response_enabled, event_store, security_settings, retry_interval)
        self.idle_clock = IdleClock(None if TRANSPORT_KEEPS_IDLE_CLOCK else idle_timeout)
        self.encoding = check_encoding(encoding)
        self.reply_streams = reply_streams_for(reply_streams, event_store)
        if not 0 < hold_interval <= 30:
            raise ValueError("hold_interval must be more than 0 and at most 30 seconds (SPEC 9.6.2 rule 5)")
        self.hold_interval = hold_interval
        self._holding: HoldingEventStore | None = None
        if event_store is not None and self.reply_streams == "when-needed":
            self._holding = HoldingEventStore(event_store, retry_interval)
            self._event_store = self._holding
        self._security = WireAwareSecurity(security_settings)
        self.supports_native_bytes = native_bytes
        self.native_bytes_in_force = False
        # Media bytes of replies still to be written (`native_image`), by stream id (shared/held_media.py).
        self._held_media = HeldMedia()
        self._confirm_native_for: RequestId | None = None
        self.limits = limits or ReceiveLimits()
        # The session's order (SPEC 9.4): one initialize, then notifications/initialized before requests.
        self.client_initialized = False
        self._initialize_seen = False
        self._initialized = anyio.Event()
        self._waiting_for_initialized = 0

    # --- every request -----------------------------------------------------------------------------------

    async def handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        if TRANSPORT_SPLITS_HANDLER:  # mcp 1.30, 2.2+: the SDK's idle clock around `_handle_request`
            await super().handle_request(scope, receive, send)
            return
        await self.idle_clock.hold(self._handle_request, self.terminate, scope, receive, send)

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        accept = media_types.AcceptChoice(Request(scope).headers.get("accept"))
        token = prefers_msgpack.set(accept.prefers_msgpack)
        try:
            if TRANSPORT_SPLITS_HANDLER:
                await super()._handle_request(scope, receive, send)
            else:  # mcp 1.24, 2.0-2.1: `handle_request` is the SDK's whole handler
                await super().handle_request(scope, receive, send)
        finally:
            prefers_msgpack.reset(token)

    def _metadata(self, request: Request, unanswered: RequestId | None = None) -> ServerMessageMetadata:
        """The SDK's metadata for an inbound message (2.3's `_message_metadata`, which also ends a request that
        settles unanswered; 1.x frames it with the request alone, as its own transport does)."""
        stamp = getattr(super(), "_message_metadata", None)
        if stamp is None:
            return ServerMessageMetadata(request_context=request)
        if unanswered is None:
            return stamp(request)  # type: ignore[no-any-return]
        return stamp(request, on_request_unanswered=partial(self._terminate_unanswered_request, unanswered))  # type: ignore[no-any-return]

    def _session_message(self, model: Any, request: Request, stream_id: str, protocol_version: str) -> SessionMessage:
        """A request for the session, as the SDK frames it (`_create_session_message` takes the SDK's form)."""
        return self._create_session_message(sdk_message(model), request, stream_id, protocol_version)

    def _create_error_response(
        self, error_message: str, status_code: HTTPStatus, error_code: int = INVALID_REQUEST, headers: dict[str, str] | None = None
    ) -> Response:
        if not prefers_msgpack.get():
            return super()._create_error_response(error_message, status_code, error_code, headers)
        extra = dict(headers or {})
        if self.mcp_session_id:
            extra[MCP_SESSION_ID_HEADER] = self.mcp_session_id
        return error_response(status_code, error_code, error_message, msgpack=True, headers=extra)

    async def _validate_session(self, request: Request, send: Send) -> bool:
        """SPEC 9.4: a request without `Mcp-Session-Id` to a server with sessions is 400 -32000, as the TS
        server answers it ("Server not initialized" on a session not yet initialized); the SDK's was -32600."""
        if self.mcp_session_id and not self._get_session_id(request):
            message = "Bad Request: Mcp-Session-Id header is required" if self._initialize_seen else "Bad Request: Server not initialized"
            await self._create_error_response(message, HTTPStatus.BAD_REQUEST, TRANSPORT_ERROR)(request.scope, request.receive, send)
            return False
        return await super()._validate_session(request, send)

    async def _validate_request_headers(self, request: Request, send: Send) -> bool:
        """The session, then SPEC 9.4's unsupported `MCP-Protocol-Version` (400 -32000): only an older unknown
        one reaches this transport (the manager sends the modern ones to the per-request path, 9.5)."""
        if not await self._validate_session(request, send):
            return False
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            message = (
                f"Bad Request: Unsupported protocol version: {version} "
                f"(supported versions: {', '.join(HANDSHAKE_PROTOCOL_VERSIONS)})"
            )
            await self._create_error_response(message, HTTPStatus.BAD_REQUEST, TRANSPORT_ERROR)(request.scope, request.receive, send)
            return False
        return True

    # --- POST --------------------------------------------------------------------------------------------

    async def _session_order_refusal(self, messages: list[Any]) -> Response | None:
        """SPEC 9.4, as the TS server keeps it: a second `initialize` in a session is 400 (the SDK's
        re-initialized it), and a request other than `ping` before `notifications/initialized` waits a moment
        for it (a relay may reorder the two POSTs; at most MAX_WAITING requests wait), then is 400 -32000
        `not-initialized` with no handler run. The session goes on either way."""
        if not self.mcp_session_id:
            return None
        for message in messages:
            if isinstance(message, JSONRPCNotification) and message.method == "notifications/initialized":
                self.client_initialized = True
                self._initialized.set()
        requests = [m for m in messages if isinstance(m, JSONRPCRequest)]
        headers = self._session_header()
        for message in requests:
            if message.method == "initialize":
                if self._initialize_seen:
                    return error_response(
                        HTTPStatus.BAD_REQUEST, INVALID_REQUEST, "Bad Request: the session is already initialized",
                        request_id=message.id, headers=headers,
                    )
                self._initialize_seen = True
                return None
        waiting = [m for m in requests if m.method != "ping"]
        if waiting and not self.client_initialized:
            if self._waiting_for_initialized < MAX_WAITING:
                self._waiting_for_initialized += 1
                try:
                    with anyio.move_on_after(INITIALIZED_WAIT):
                        await self._initialized.wait()
                finally:
                    self._waiting_for_initialized -= 1
            if not self.client_initialized:
                return error_response(
                    HTTPStatus.BAD_REQUEST, TRANSPORT_ERROR, "Bad Request: notifications/initialized not received",
                    request_id=waiting[0].id, data={"reason": "not-initialized"}, headers=headers,
                )
        return None

    async def _handle_post_request(self, scope: Scope, request: Request, receive: Receive, send: Send) -> None:
        accept = media_types.AcceptChoice(request.headers.get("accept"))
        content_type = request.headers.get("content-type")
        json_client = not accept.prefers_msgpack and media_types.is_json_body(content_type)
        if json_client and (self.is_json_response_enabled or self.reply_streams == "always"):
            refusal = await self._session_order_refusal(_peek_json(await request.body()))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
            await super()._handle_post_request(scope, request, receive, send)
            return
        writer = self._read_stream_writer
        assert writer is not None, "connect() first"

        async def refuse(status: int, code: int, message: str, **kw: Any) -> None:
            if json_client and "data" not in kw:
                # A JSON client held here (9.6.2) is refused exactly as the SDK's own code refuses it.
                await self._create_error_response(message, HTTPStatus(status), code)(scope, receive, send)
                return
            extra = {MCP_SESSION_ID_HEADER: self.mcp_session_id} if self.mcp_session_id else {}
            await error_response(status, code, message, headers=extra, **kw)(scope, receive, send)

        reply_msgpack = accept.prefers_msgpack
        if not reply_msgpack and not accept.json_complete and not (self.is_json_response_enabled and accept.json):
            await refuse(
                HTTPStatus.NOT_ACCEPTABLE, INVALID_REQUEST,
                "Not Acceptable: Client must accept both application/json and text/event-stream",
            )
            return
        body_is_msgpack = media_types.is_msgpack_body(content_type)
        if not body_is_msgpack and not media_types.is_json_body(content_type):
            await refuse(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json or application/msgpack",
            )
            return

        body = await request.body()
        try:
            if body_is_msgpack:
                value = decode_msgpack(body, self.limits, native=self.native_bytes_in_force)
            else:
                value = pydantic_core.from_json(body)
            if isinstance(value, list) and not json_client:
                # A batch (SPEC 9.1, 9.4); a JSON client's is refused by the SDK's models, as the SDK refuses it.
                await self._handle_batch(scope, request, receive, send, value, accept, body_is_msgpack, refuse)
                return
            incoming = session_message(value)
        except WireError as exc:
            request_id = exc.request_id if exc.has_id and exc.kind == "request" else None
            await refuse(
                HTTPStatus.BAD_REQUEST, exc.jsonrpc_code, f"Refused: {exc}", request_id=request_id,
                data=error_data(exc.code),
            )
            return
        except ValidationError as exc:
            if json_client:  # the SDK's code and text for a body that is JSON but not a message
                await refuse(HTTPStatus.BAD_REQUEST, INVALID_PARAMS, f"Validation error: {exc}")
            else:
                await refuse(HTTPStatus.BAD_REQUEST, PARSE_ERROR, f"Parse error: {exc}")
            return
        except ValueError as exc:
            await refuse(HTTPStatus.BAD_REQUEST, PARSE_ERROR, f"Parse error: {exc}")
            return
        message = message_model(incoming.message)
        order_refusal = await self._session_order_refusal([message])
        if order_refusal is not None:
            await order_refusal(scope, receive, send)
            return

        is_initialize = isinstance(message, JSONRPCRequest) and message.method == "initialize"
        if is_initialize:
            request_session = request.headers.get(MCP_SESSION_ID_HEADER)
            if self.mcp_session_id and request_session and request_session != self.mcp_session_id:
                await refuse(HTTPStatus.NOT_FOUND, INVALID_REQUEST, "Not Found: Invalid or expired session ID")
                return
            if (
                body_is_msgpack and reply_msgpack and self.supports_native_bytes and self.mcp_session_id
                and negotiation.request_offers(value)
            ):
                self._confirm_native_for = message.id  # a request: it offers (request_offers)
        elif not await self._validate_request_headers(request, send):
            return

        if not isinstance(message, JSONRPCRequest):
            accepted = (
                self._create_json_response(None, HTTPStatus.ACCEPTED)
                if json_client
                else Response(status_code=HTTPStatus.ACCEPTED, headers=self._session_header())
            )
            await accepted(scope, receive, send)
            await writer.send(SessionMessage(incoming.message, metadata=self._metadata(request)))
            return

        protocol_version = (
            str((message.params or {}).get("protocolVersion", DEFAULT_NEGOTIATED_VERSION))
            if is_initialize
            else request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        )
        stream_id = str(message.id)
        if stream_id in self._request_streams:
            # SPEC 5.3: a second request under an id still in flight would take the first one's place.
            await refuse(
                HTTPStatus.BAD_REQUEST, INVALID_REQUEST, f"Request id {message.id!r} is already in flight",
                request_id=message.id, data={"reason": "duplicate-id"},
            )
            return
        wire = ReplyWire(reply_msgpack, accept.replies_any, body_is_msgpack)
        if self.is_json_response_enabled:
            await self._reply_single(scope, request, receive, send, message, stream_id, wire)
        elif self.reply_streams == "always":
            await self._reply_stream(scope, request, receive, send, message, stream_id, protocol_version, wire)
        else:
            await self._reply_held(scope, request, receive, send, message, stream_id, protocol_version, wire)

    async def _handle_batch(
        self, scope: Scope, request: Request, receive: Receive, send: Send, value: list[Any],
        accept: media_types.AcceptChoice, body_is_msgpack: bool, refuse: Any,
    ) -> None:
        """A batch (SPEC 9.1, 9.4, as the TS server): up to 100 messages, no `initialize`, no request id twice
        or in flight (5.3). Notifications and responses alone get 202; requests get one reply stream carrying
        every message bound for them, in the order sent, until each is answered (one body holding the array
        of answers with `json_response`)."""
        if len(value) > MAX_BATCH_SIZE:
            await refuse(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, f"Invalid Request: Batch must not exceed {MAX_BATCH_SIZE} messages")
            return
        try:
            messages = [session_message(item) for item in value]
        except ValidationError as exc:
            await refuse(HTTPStatus.BAD_REQUEST, PARSE_ERROR, f"Parse error: {exc}")
            return
        models = [message_model(m.message) for m in messages]
        requests = [m for m in models if isinstance(m, JSONRPCRequest)]
        if any(r.method == "initialize" for r in requests):
            await refuse(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, "Invalid Request: initialize may not be in a batch")
            return
        order_refusal = await self._session_order_refusal(models)
        if order_refusal is not None:
            await order_refusal(scope, receive, send)
            return
        if not await self._validate_request_headers(request, send):
            return
        ids = [str(r.id) for r in requests]
        for request_id, stream_id in zip([r.id for r in requests], ids):
            if stream_id in self._request_streams or ids.count(stream_id) > 1:
                await refuse(
                    HTTPStatus.BAD_REQUEST, INVALID_REQUEST, f"Request id {request_id!r} is already in flight",
                    request_id=request_id, data={"reason": "duplicate-id"},
                )
                return
        writer = self._read_stream_writer
        assert writer is not None, "connect() first"
        if not requests:
            await Response(status_code=HTTPStatus.ACCEPTED, headers=self._session_header())(scope, receive, send)
            for incoming in messages:
                await writer.send(SessionMessage(incoming.message, metadata=self._metadata(request)))
            return
        protocol_version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        merged_writer, merged = anyio.create_memory_object_stream[EventMessage](REQUEST_STREAM_BUFFER_SIZE)
        readers = [self._open_request_stream(stream_id) for stream_id in ids]
        wire = ReplyWire(accept.prefers_msgpack, accept.replies_any, body_is_msgpack)
        one_body = self.is_json_response_enabled
        answers: list[Any] = []
        started = False

        async def forward(reader: MemoryObjectReceiveStream[EventMessage]) -> None:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError):
                async for event in reader:
                    await merged_writer.send(event)
                    if _is_final(event.message):
                        return

        async def write(chunk: bytes) -> None:
            nonlocal started
            if not started:
                started = True
                content_type = media_types.FRAME_STREAM if wire.msgpack else media_types.SSE
                wire_header = None if wire.msgpack else self._json_reply_headers(wire)
                extra = {**self._session_header(), **(wire_header or {})}
                headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-cache, no-transform"),
                           *[(k.encode(), v.encode()) for k, v in extra.items()]]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": chunk, "more_body": True})

        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_cancel_on_disconnect, receive, tasks.cancel_scope)
                for reader in readers:
                    tasks.start_soon(forward, reader)
                for incoming, model in zip(messages, models):
                    if isinstance(model, JSONRPCRequest):
                        await writer.send(self._session_message(model, request, str(model.id), protocol_version))
                    else:
                        await writer.send(SessionMessage(incoming.message, metadata=self._metadata(request)))
                left = len(requests)
                while left:
                    event = await merged.receive()
                    if _is_final(event.message):
                        left -= 1
                    if one_body:
                        if _is_final(event.message):
                            answers.append(event.message)
                    elif wire.msgpack:
                        await write(self._event_frames(event))
                    else:
                        await write(b"event: message\r\ndata: " + encode_json(event.message) + b"\r\n\r\n")
                tasks.cancel_scope.cancel()
        finally:
            for stream_id in ids:
                await self._clean_up_memory_streams(stream_id)
            merged_writer.close()
            merged.close()
        if one_body:
            if wire.msgpack:
                body = encode_payload([self._native_dict(m) for m in answers])
                await Response(body, headers={**self._session_header(), "content-type": media_types.MSGPACK})(scope, receive, send)
            else:
                body = b"[" + b",".join(encode_json(m) for m in answers) + b"]"
                headers = {**self._session_header(), **(self._json_reply_headers(wire) or {}), "content-type": "application/json"}
                await Response(body, headers=headers)(scope, receive, send)
        elif started:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _native_dict(self, message: Any) -> dict[str, Any]:
        """A message as plain values for a MessagePack body, its media as bin when native bytes are in force."""
        value = message_dict(message)
        if self.native_bytes_in_force:
            base64_to_bin(value, self._held_media)
        return value

    def _request_hold(self, stream_id: str, wire: ReplyWire) -> RequestHold | None:
        """A hold for `native_image` while the request is handled, when its reply goes as MessagePack with native
        bytes in force (every such reply carries its media as bin: `_as_msgpack`). None (base64 made by the tool)
        for a JSON reply, the `json` encoding, and with an event store, whose stored copies outlive the reply."""
        if self.native_bytes_in_force and wire.msgpack and self.encoding != "json" and self._event_store is None:
            return self._held_media.open(stream_id)
        return None

    async def _clean_up_memory_streams(self, request_id: Any) -> None:
        """The request's stream ends (its reply written, dropped or cancelled, or its client gone): what its
        reply held goes with it."""
        self._held_media.release(str(request_id))
        await super()._clean_up_memory_streams(request_id)

    def _session_header(self) -> dict[str, str]:
        return {MCP_SESSION_ID_HEADER: self.mcp_session_id} if self.mcp_session_id else {}

    def _confirms_native(self, message: Any) -> bool:
        model = message_model(message)
        return (
            self._confirm_native_for is not None
            and isinstance(model, JSONRPCResponse)
            and model.id == self._confirm_native_for
        )

    def _encode(self, message: Any) -> bytes:
        """A message for this session's MessagePack replies, confirming native bytes on the `initialize` result
        that answers an offer (SPEC 8.1 rule 2), and with bin media once the extension is in force."""
        value = message_dict(message)
        if self._confirms_native(message):
            self._confirm_native_for = None
            negotiation.confirm_in(value["result"])
            self.native_bytes_in_force = True
            return encode_msgpack(value, native=False)
        return encode_msgpack(value, native=self.native_bytes_in_force, held=self._held_media)

    def _as_msgpack(self, message: Any, wire: ReplyWire) -> bool:
        """The encoding of one one-body reply (SPEC 9.6 rules 3-4, the `encoding` option)."""
        if not wire.msgpack:
            return False
        if not wire.replies_any or self.encoding == "smallest":
            return True
        if self.encoding == "json":
            if self._confirms_native(message):
                self._confirm_native_for = None  # a confirmation counts on msgpack-v1 only (8.1): none is sent
            return False
        if self._confirms_native(message):
            return True
        model = message_model(message)
        return isinstance(model, JSONRPCResponse) and cheaper_as_msgpack(model.result, native=self.native_bytes_in_force)

    def _one_body(self, message: Any, wire: ReplyWire) -> Response:
        """A reply as one body: `application/msgpack`, or the SDK's own JSON body, by `_as_msgpack`; a JSON
        reply to a MessagePack body says the server read it (`Mcp-Msgpack-Wire`, SPEC 9.6 rule 5)."""
        if self._as_msgpack(message, wire):
            headers = {**self._session_header(), "content-type": media_types.MSGPACK}
            try:
                return Response(self._encode(message), headers=headers)
            except HeldMediaGone as exc:  # loudly, as an error for the request: never a success without its media
                return error_response(
                    HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR, f"Internal error: {exc}", msgpack=True,
                    request_id=getattr(message_model(message), "id", None), headers=self._session_header(), data=error_data("server-error"),
                )
        return self._create_json_response(message, headers=self._json_reply_headers(wire))

    @staticmethod
    def _json_reply_headers(wire: ReplyWire) -> dict[str, str] | None:
        return {media_types.WIRE_HEADER: "v1"} if wire.body_is_msgpack else None

    def _open_request_stream(self, stream_id: str) -> MemoryObjectReceiveStream[EventMessage]:
        self._request_streams[stream_id] = anyio.create_memory_object_stream[EventMessage](REQUEST_STREAM_BUFFER_SIZE)
        return self._request_streams[stream_id][1]

    async def _reply_single(
        self, scope: Scope, request: Request, receive: Receive, send: Send, message: JSONRPCRequest, stream_id: str,
        wire: ReplyWire,
    ) -> None:
        """One body holding the response (the server's `json_response` mode), its encoding chosen per reply."""
        reader = self._open_request_stream(stream_id)
        metadata = self._metadata(request, unanswered=message.id)
        assert self._read_stream_writer is not None
        with serving(self._request_hold(stream_id, wire)):
            await self._read_stream_writer.send(SessionMessage(sdk_message(message), metadata=metadata))
        try:
            event = await reader.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            response = error_response(
                HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR, "Session terminated before the request completed",
                msgpack=wire.msgpack, headers=self._session_header(), data=error_data("server-error"),
            )
        else:
            response = self._one_body(event.message, wire)
        finally:
            await self._clean_up_memory_streams(stream_id)
        await response(scope, receive, send)

    async def _reply_held(
        self, scope: Scope, request: Request, receive: Receive, send: Send, message: JSONRPCRequest,
        stream_id: str, protocol_version: str, wire: ReplyWire,
    ) -> None:
        """A held reply (SPEC 9.6.2): nothing is sent until the first message bound for this POST. The final
        response first goes as one body, chosen per reply; anything else first (progress, logging, a server
        request), or silence past `hold_interval`, opens the reply stream with the held message first."""
        reader = self._open_request_stream(stream_id)
        request_session = self._session_message(message, request, stream_id, protocol_version)
        assert self._read_stream_writer is not None
        held: list[EventMessage] = []
        if self._holding is not None:
            self._holding.hold(stream_id, needs_priming=is_version_at_least(protocol_version, "2025-11-25"))
        try:
            await self._hold_and_reply(
                scope, request, receive, send, message, stream_id, protocol_version, wire, reader, request_session, held
            )
        finally:
            if self._holding is not None:
                self._holding.release(stream_id)

    async def _hold_and_reply(
        self, scope: Scope, request: Request, receive: Receive, send: Send, message: JSONRPCRequest,
        stream_id: str, protocol_version: str, wire: ReplyWire, reader: MemoryObjectReceiveStream[EventMessage],
        request_session: SessionMessage, held: list[EventMessage],
    ) -> None:
        assert self._read_stream_writer is not None
        gone = False

        async with anyio.create_task_group() as tasks:

            async def watch_disconnect() -> None:
                nonlocal gone
                while (await receive())["type"] != "http.disconnect":
                    pass
                gone = True
                tasks.cancel_scope.cancel()

            tasks.start_soon(watch_disconnect)
            with serving(self._request_hold(stream_id, wire)):
                await self._read_stream_writer.send(request_session)
            with anyio.move_on_after(self.hold_interval):
                try:
                    held.append(await reader.receive())
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    pass  # the session ended or the stream was closed while held: the stream opens and ends (rule 7)
            tasks.cancel_scope.cancel()

        if gone:
            # The client went away while held (rule 6): nothing is written; the request runs on and what it
            # sends is read and dropped here, so its id stays in flight (5.3) until it is answered and its
            # answer cannot reach a later request that reuses the id.
            if self._holding is not None:
                self._holding.abandon(stream_id)
            try:
                async for event in reader:
                    if _is_final(event.message):
                        break
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                pass
            finally:
                await self._clean_up_memory_streams(stream_id)
            return
        if not held and self._holding is not None and self._holding.settled_as_body(stream_id):
            # The hold interval passed just as the final response was being stored (not stored: one body).
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError):
                held.append(await reader.receive())
        if held and _is_final(held[0].message):
            try:
                body = self._one_body(held[0].message, wire)  # before the clean-up releases its held media
            finally:
                await self._clean_up_memory_streams(stream_id)
            await body(scope, receive, send)
            return
        priming = await self._holding.open(stream_id) if self._holding is not None else None
        await self._reply_stream(
            scope, request, receive, send, message, stream_id, protocol_version, wire, held=held, reader=reader,
            priming=priming,
        )

    async def _reply_stream(
        self, scope: Scope, request: Request, receive: Receive, send: Send, message: JSONRPCRequest,
        stream_id: str, protocol_version: str, wire: ReplyWire, *, held: list[EventMessage] | None = None,
        reader: MemoryObjectReceiveStream[EventMessage] | None = None, priming: SSEEvent | None = None,
    ) -> None:
        """The reply stream: frames for a MessagePack reply wire (SPEC 9.3), else SSE (the SDK's writer).
        With `reader`, the request was dispatched already (a held reply: its `priming`, if any, then `held`)."""
        if not wire.msgpack:
            await self._reply_sse(
                scope, request, receive, send, message, stream_id, protocol_version, wire, held, reader, priming
            )
            return
        if reader is None:
            priming = await self._mint_priming_event(stream_id, protocol_version)
        dispatch = reader is None
        if reader is None:
            reader = self._open_request_stream(stream_id)
        headers = [
            (b"content-type", media_types.FRAME_STREAM.encode()),
            (b"cache-control", b"no-cache, no-transform"),
            *[(k.encode(), v.encode()) for k, v in self._session_header().items()],
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if priming is not None:
            control: dict[str, Any] = {"prime": priming["id"]}
            if "retry" in priming:
                control["retry"] = priming["retry"]
            await send({"type": "http.response.body", "body": control_frame(control), "more_body": True})
        elif not held:
            # Starlette's servers send headers with the first body bytes only: a keep-alive opens the stream now.
            await send({"type": "http.response.body", "body": _KEEP_ALIVE, "more_body": True})

        async with anyio.create_task_group() as tg:
            tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
            try:
                for event in held or ():
                    await send({"type": "http.response.body", "body": self._event_frames(event), "more_body": True})
                if dispatch:
                    assert self._read_stream_writer is not None
                    with serving(self._request_hold(stream_id, wire)):
                        await self._read_stream_writer.send(
                            self._session_message(message, request, stream_id, protocol_version)
                        )
                await self._write_events(reader, send)
            finally:
                await self._clean_up_memory_streams(stream_id)
            tg.cancel_scope.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _reply_sse(
        self, scope: Scope, request: Request, receive: Receive, send: Send, message: JSONRPCRequest,
        stream_id: str, protocol_version: str, wire: ReplyWire, held: list[EventMessage] | None,
        reader: MemoryObjectReceiveStream[EventMessage] | None, priming: SSEEvent | None,
    ) -> None:
        """SSE (a JSON reader): the SDK's SSE writer and headers, fed the decoded request (no JSON text made of
        a MessagePack body) and, for a held reply, its priming and the held message first."""
        if reader is None:
            priming = await self._mint_priming_event(stream_id, protocol_version)
        dispatch = reader is None
        if reader is None:
            reader = self._open_request_stream(stream_id)
        sse_writer, sse_reader = anyio.create_memory_object_stream[SSEEvent](0)
        self._sse_stream_writers[stream_id] = sse_writer
        headers = {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": media_types.SSE,
            **self._session_header(),
            **(self._json_reply_headers(wire) or {}),
        }
        source = _HeldFirst(held or [], reader)
        response = EventSourceResponse(
            content=sse_reader,
            data_sender_callable=partial(self._run_sse_writer, stream_id, sse_writer, source, priming),  # type: ignore[arg-type]  # _HeldFirst reads as the stream does
            headers=headers,
        )
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(response, scope, receive, send)
                if dispatch:
                    assert self._read_stream_writer is not None
                    await self._read_stream_writer.send(
                        self._session_message(message, request, stream_id, protocol_version)
                    )
        finally:
            await sse_reader.aclose()
            await self._clean_up_memory_streams(stream_id)

    def _event_frames(self, event: EventMessage) -> bytes:
        """A message as a frame, after its event id's control frame when the store gave it one (SPEC 9.3)."""
        chunk = frame(self._encode(event.message))
        if event.event_id is not None:
            chunk = control_frame({"id": event.event_id}) + chunk
        return chunk

    async def _write_events(
        self, reader: MemoryObjectReceiveStream[EventMessage], send: Send, *, until_response: bool = True
    ) -> None:
        """Each message as frames (`_event_frames`), a keep-alive after each `hold_interval` of silence (9.3)."""
        try:
            while True:
                event = None
                with anyio.move_on_after(self.hold_interval):
                    event = await reader.receive()
                if event is None:
                    await send({"type": "http.response.body", "body": _KEEP_ALIVE, "more_body": True})
                    continue
                await send({"type": "http.response.body", "body": self._event_frames(event), "more_body": True})
                if until_response and _is_final(event.message):
                    return
        except (anyio.ClosedResourceError, anyio.EndOfStream):
            logger.debug("frame stream closed by close_sse_stream()")

    # --- GET ---------------------------------------------------------------------------------------------

    async def _handle_get_request(self, request: Request, send: Send) -> None:
        if self._event_store is None and LAST_EVENT_ID_HEADER in request.headers:
            # Nothing to resume from: a plain GET stream, as the TS server opens it (the SDK's answered 500).
            headers = [(k, v) for k, v in request.scope["headers"] if k.lower() != LAST_EVENT_ID_HEADER.encode()]
            request = Request({**request.scope, "headers": headers}, request.receive)
        accept = media_types.AcceptChoice(request.headers.get("accept"))
        if not accept.frames and not accept.sse:
            # SPEC 9.2: the GET stream needs one of the two stream types listed; the SDK took `*/*` (and
            # `text/*`) for SSE. The TS server's answer.
            await self._create_error_response(
                "Not Acceptable: Client must accept text/event-stream", HTTPStatus.NOT_ACCEPTABLE, TRANSPORT_ERROR
            )(request.scope, request.receive, send)
            return
        if not accept.frames:
            await super()._handle_get_request(request, send)
            return
        if not await self._validate_request_headers(request, send):
            return
        scope, receive = request.scope, request.receive
        last_event_id = request.headers.get(LAST_EVENT_ID_HEADER)
        if last_event_id is None and "_GET_stream" in self._request_streams:
            await self._create_error_response(
                "Conflict: Only one stream is allowed per session", HTTPStatus.CONFLICT
            )(scope, receive, send)
            return
        headers = [
            (b"content-type", media_types.FRAME_STREAM.encode()),
            (b"cache-control", b"no-cache, no-transform"),
            *[(k.encode(), v.encode()) for k, v in self._session_header().items()],
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        # Starlette's servers send headers with the first body bytes only: a keep-alive opens the stream now.
        await send({"type": "http.response.body", "body": _KEEP_ALIVE, "more_body": True})
        async with anyio.create_task_group() as tg:
            tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
            if last_event_id is not None:
                await self._replay_frames(last_event_id, send)
            else:
                reader = self._open_request_stream("_GET_stream")
                try:
                    await self._write_events(reader, send, until_response=False)
                finally:
                    await self._clean_up_memory_streams("_GET_stream")
            tg.cancel_scope.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _replay_frames(self, last_event_id: str, send: Send) -> None:
        """Resumption on the frame stream (SPEC 9.3): stored events after `last_event_id`, then live."""
        store = self._event_store
        if store is None:
            return

        async def replay(event: EventMessage) -> None:
            await send({"type": "http.response.body", "body": self._event_frames(event), "more_body": True})

        stream_id = await store.replay_events_after(last_event_id, replay)
        if stream_id and stream_id not in self._request_streams:
            reader = self._open_request_stream(stream_id)
            try:
                await self._write_events(reader, send, until_response=stream_id != "_GET_stream")
            finally:
                await self._clean_up_memory_streams(stream_id)

