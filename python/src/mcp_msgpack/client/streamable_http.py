"""`streamable_http_client`: the SDK's Streamable HTTP client transport, on msgpack-v1 where the server speaks it.

The SDK's transport does everything MCP's HTTP transport asks (sessions, both protocol revisions with their
`Mcp-Method`/`Mcp-Name` headers, which the SDK's session stamps on each message, redirects kept on the
endpoint's origin, resumption, 2026-07-28 cancellation). This subclass changes only what the wire decides: the
headers it negotiates with, the body it posts, and how it reads `application/msgpack` replies and frame streams
(SPEC 9). JSON and SSE replies go through the SDK's own code, so a stock server is served exactly as before.
"""

from __future__ import annotations

from ..shared.sdk_compat import require_http

require_http("streamable_http_client")  # before the SDK internals below: a clear error on an SDK without them

import contextlib
import logging
import math
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import pydantic_core
from anyio.abc import TaskGroup
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import (
    DEFAULT_MAX_SSE_EVENT_SIZE,
    DEFAULT_RECONNECTION_DELAY_MS,
    LAST_EVENT_ID,
    MAX_RECONNECTION_ATTEMPTS,
    RequestContext,
    StreamableHTTPTransport,
    StreamWriter,
    _unfollowed_redirect,
)
from mcp.shared._compat import resync_tracer
from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream, create_context_streams
from mcp.shared._httpx_utils import create_mcp_http_client, stream_within_origin
from mcp.shared.message import SessionMessage
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    RequestId,
    jsonrpc_message_adapter,
)

from ..wire import ReceiveLimits, WireError
from ..shared.extension import NATIVE_RESULT_META
from ..shared import http_media_types as media_types
from ..shared import http_negotiation as negotiation
from ..shared.http_codec import decode_msgpack, encode_msgpack, message_dict, session_message
from ..shared.frame_stream import is_control_map, read_frames
from ..shared.http_opening import InitializedInBackground, posts_initialized_in_background
from ..shared.http_client_wire import ClientWire, Wire
from .request_coding import (
    ReplyTooLarge,
    RequestCoding,
    UnofferedCoding,
    check_reply_coding,
    dictionary_decoded,
    offered_codings,
    read_capped,
)
from .tools_list_prefetch import PREFETCH_ID, ToolsListPrefetch

logger = logging.getLogger(__name__)

class MsgpackStreamableHTTPTransport(ClientWire, StreamableHTTPTransport):
    """The SDK's client transport, posting and reading msgpack-v1 (SPEC 9) with JSON fallback. `wire`: see
    `ClientWire` (shared with the older SDKs' client; with `'auto'` the message that found out is re-sent as
    JSON); `wire='json'` is the SDK's transport unchanged.
    """

    def __init__(
        self,
        url: str,
        *,
        wire: Wire = "auto",
        native_bytes: bool = False,
        limits: ReceiveLimits | None = None,
        max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE,
        prefetch_tools_list: bool = False,
    ) -> None:
        ClientWire.__init__(self, url, wire, native_bytes)
        StreamableHTTPTransport.__init__(self, url, max_sse_event_size=max_sse_event_size)
        self.native_advertised = False
        """True once a server/discover result read as MessagePack advertised native bytes (rule 7)."""
        self.limits = limits or ReceiveLimits()
        self.request_coding = RequestCoding()
        """Which coding large MessagePack request bodies go in, once the server says it takes one (SPEC 10.3)."""
        self.background: TaskGroup | None = None
        """Where `notifications/initialized` to a msgpack-v1 server is posted without waiting (set by the client)."""
        self.opening = InitializedInBackground()
        """That notification's POST, for a request refused as `not-initialized` meanwhile."""
        self.prefetch = ToolsListPrefetch(prefetch_tools_list)
        """The `tools/list` posted beside a 2026-07-28 `server/discover`, kept for the SDK's own (posted in
        `background`, so only when the client sets it)."""

    # --- headers and bodies ------------------------------------------------------------------------------

    def _prepare_headers(self) -> dict[str, str]:
        headers = super()._prepare_headers()
        if self.wire == "msgpack":
            headers["accept"] = media_types.CLIENT_ACCEPT
            headers["content-type"] = media_types.MSGPACK
        return headers

    def _msgpack_body(self, message: SessionMessage) -> tuple[bytes, bool]:
        """The POST body and whether it offers native bytes (SPEC 8.1 rules 1 and 4)."""
        body = message_dict(message)
        offered = self.native_bytes and negotiation.offer_in(body)
        # Bin in what the client sends (SPEC 8.1): in the session once confirmed (rule 3), or in a 2026-07-28
        # request that offers it to a server that advertised it in a server/discover result (rule 7).
        native = self.native_bytes_in_force or (offered and self.native_advertised and body.get("method") != "initialize")
        return encode_msgpack(body, native=native), offered

    def _take_native_result_marker(self, ctx: RequestContext) -> bool:
        """`call_tool_native`'s private `_meta` marker: removed before the request leaves the process; whether
        the request carried it (its result's media then reach the caller as bytes)."""
        message = ctx.session_message.message
        if not isinstance(message, JSONRPCRequest) or not isinstance(message.params, dict):
            return False
        meta = message.params.get("_meta")
        if not isinstance(meta, dict) or NATIVE_RESULT_META not in meta:
            return False
        meta = {k: v for k, v in meta.items() if k != NATIVE_RESULT_META}
        params = {**message.params, "_meta": meta} if meta else {k: v for k, v in message.params.items() if k != "_meta"}
        ctx.session_message = SessionMessage(message.model_copy(update={"params": params}), metadata=ctx.session_message.metadata)
        return True

    # --- POST ----------------------------------------------------------------------------------------------

    async def _handle_post_request(self, ctx: RequestContext) -> None:
        if await self._prefetched(ctx):
            return
        wants_bytes = self._take_native_result_marker(ctx)
        if self.wire == "json":
            await super()._handle_post_request(ctx)
            return
        if self._posts_in_background(ctx):
            assert self.background is not None
            self.background.start_soon(self._post_initialized, ctx, self.opening.start())
            return
        await self._post_msgpack(ctx, wants_bytes)

    def _posts_in_background(self, ctx: RequestContext) -> bool:
        """`notifications/initialized` to a msgpack-v1 server goes without waiting for its 202
        (shared/http_opening.py); a request refused as `not-initialized` meanwhile is retried once
        (`self.opening`)."""
        message = ctx.session_message.message
        return self.background is not None and posts_initialized_in_background(message, self.server_speaks_msgpack, ctx.client.auth)

    async def _post_initialized(self, ctx: RequestContext, posted: anyio.Event) -> None:
        """The background POST of `notifications/initialized`: a failure is logged (the caller has nothing to
        retry; the session's next requests say it too)."""
        try:
            await self._post_msgpack(ctx, False)
        except Exception as exc:  # a network failure or a refusal: the requests that follow report theirs
            logger.warning("notifications/initialized was not delivered to %s: %s", self.url, exc)
        finally:
            posted.set()

    async def _post_msgpack(self, ctx: RequestContext, wants_bytes: bool, retry: bool = True) -> None:
        message = ctx.session_message.message
        is_request = isinstance(message, JSONRPCRequest)
        request_id: RequestId = message.id if isinstance(message, JSONRPCRequest) else -1  # read only for a request
        headers = self._prepare_headers()
        if ctx.metadata is not None and ctx.metadata.headers is not None:
            headers.update(ctx.metadata.headers)
        headers["accept-encoding"] = offered_codings(ctx.client.headers.get("accept-encoding"))
        content, offered = self._msgpack_body(ctx.session_message)
        coded = self.request_coding.code(content)
        if coded is not None:
            content, headers["content-encoding"] = coded

        async with stream_within_origin(ctx.client, "POST", self.url, content=content, headers=headers) as response:
            try:
                response = await dictionary_decoded(response, self.limits.max_frame_bytes)
            except (httpx2.HTTPError, ReplyTooLarge) as exc:
                if is_request:
                    await self._refuse_reply(ctx, request_id, exc)
                return
            if self.request_coding.refused_coded(response, coded is not None):
                # SPEC 10.3 rule 3: the server (or a proxy) does not take it after all; the body goes uncoded.
                await self._post_msgpack(ctx, wants_bytes)
                return
            self.request_coding.learn(response)
            if response.status_code < 300 and self._is_initialized_notification(message):
                self.opening.accepted = True
            content_type = response.headers.get("content-type")
            reply_is_msgpack = media_types.is_msgpack_body(content_type)
            reply_is_frames = media_types.media_type(content_type)[0] == media_types.FRAME_STREAM
            if self.judge_reply(response.status_code, content_type, response.headers.get(media_types.WIRE_HEADER)) == "resend":
                # Nothing was served: the same message goes again as JSON (SPEC 9.2).
                await StreamableHTTPTransport._handle_post_request(self, ctx)
                return

            if response.status_code == 202:
                if is_request:
                    await self._resolve_abandoned_request(
                        ctx.read_stream_writer, request_id, "server answered a request with 202 Accepted",
                        code=INVALID_REQUEST,
                    )
                return
            if (redirect := _unfollowed_redirect(response)) is not None:
                logger.warning(redirect)
                if is_request:
                    await self._resolve_abandoned_request(
                        ctx.read_stream_writer, request_id, redirect, code=INVALID_REQUEST
                    )
                return
            if response.status_code >= 400:
                if is_request and retry and await self.opening.retries(response, self.limits):
                    await self._post_msgpack(ctx, wants_bytes, retry=False)
                elif is_request:
                    await self._answer_http_error(response, ctx, request_id, reply_is_msgpack)
                return

            if self._is_initialization_request(message):
                self._maybe_extract_session_id_from_response(response)
            if not is_request:
                return
            native = offered or self.native_bytes_in_force
            if reply_is_msgpack:
                await self._read_msgpack_reply(response, ctx, request_id, native, offered, wants_bytes)
            elif reply_is_frames:
                await self._read_frame_stream(response, ctx, native, offered, wants_bytes)
            elif media_types.is_json_body(content_type):
                await self._handle_json_response(response, ctx.read_stream_writer, request_id=request_id)
            elif media_types.media_type(content_type)[0] == media_types.SSE:
                await self._handle_sse_response(response, ctx)
            else:
                await self._resolve_abandoned_request(
                    ctx.read_stream_writer, request_id, f"Unexpected content type: {content_type}",
                    code=INVALID_REQUEST,
                )

    async def _prefetched(self, ctx: RequestContext) -> bool:
        """Shows the SDK's request to the tools/list prefetch (tools_list_prefetch.py): after the discover it
        starts the prefetch beside it; the SDK's `tools/list` it answers from the kept result (True: nothing to
        post)."""
        message = ctx.session_message.message
        if not isinstance(message, JSONRPCRequest):
            return False
        request = {"jsonrpc": "2.0", "id": message.id, "method": message.method, "params": message.params}
        headers = ctx.metadata.headers if ctx.metadata is not None else None
        prefetch = self.prefetch.prefetch_for(request, headers)
        resumption = ctx.metadata.resumption_token if ctx.metadata is not None else None
        answer = await self.prefetch.answer(request, headers, resumption)
        if answer is not None:
            await ctx.read_stream_writer.send(session_message(answer))
            return True
        if prefetch is not None and self.background is not None:
            # The prefetch leaves beside the discover; what it answers goes nowhere but the kept result.
            client = ctx.client
            self.prefetch.start(prefetch, lambda request, headers: self._post_prefetch(client, request, headers), self.background)
        return False

    async def _post_prefetch(
        self, client: httpx2.AsyncClient, request: dict[str, Any], message_headers: dict[str, str]
    ) -> list[Any] | None:
        """The prefetched `tools/list` (tools_list_prefetch.py), posted as the SDK's own would be (its headers,
        the wire's body and the request coding) and its answer read on the paths every reply takes (either wire,
        content codings, the caps), into a list. It teaches the transport nothing (the wire, the server's
        codings and native bytes are learned from the SDK's own requests, so the fallback rules run as without
        it) and reports nothing: any failure is None. An answer to a MessagePack body counts only from a server
        that has shown it speaks msgpack-v1: anything else may be a JSON-only server's answer to bytes it could
        not read."""
        wire = self.wire
        headers = {**self._prepare_headers(), **message_headers}
        headers["accept-encoding"] = offered_codings(client.headers.get("accept-encoding"))
        if wire == "msgpack":
            content = encode_msgpack(request, native=False)
            coded = self.request_coding.code(content)
            if coded is not None:
                content, headers["content-encoding"] = coded
        else:
            content = pydantic_core.to_json(request)
        async with stream_within_origin(client, "POST", self.url, content=content, headers=headers) as response:
            content_type = response.headers.get("content-type")
            kind = media_types.media_type(content_type)[0]
            if not self.counts_unlearned(wire, response.status_code, content_type, response.headers.get(media_types.WIRE_HEADER)):
                return None
            response = await dictionary_decoded(response, self.limits.max_frame_bytes)
            writer, reader = create_context_streams[SessionMessage | Exception](math.inf)
            async with reader:
                async with writer:
                    if media_types.is_msgpack_body(content_type):
                        body = await read_capped(response, self.limits.max_frame_bytes)
                        await writer.send(session_message(decode_msgpack(body, self.limits, native=False)))
                    elif kind == media_types.FRAME_STREAM:
                        await self._consume_frames(response, writer, native=False)
                    elif media_types.is_json_body(content_type):
                        await self._handle_json_response(response, writer, request_id=PREFETCH_ID)
                    elif kind == media_types.SSE:
                        async for sse in httpx2.EventSource(response, max_event_size=self.max_sse_event_size):
                            if await self._handle_sse_event(sse, writer):
                                break
                    else:
                        return None
                return [message_dict(item) if isinstance(item, SessionMessage) else item async for item in reader]

    async def _answer_http_error(
        self, response: httpx2.Response, ctx: RequestContext, request_id: RequestId, reply_is_msgpack: bool
    ) -> None:
        """A 4xx/5xx to a request: its JSON-RPC error if the body holds one, else one made from the status."""
        body = await response.aread()
        error: ErrorData | None = None
        try:
            if reply_is_msgpack:
                parsed = session_message(decode_msgpack(body, self.limits, native=False)).message
            elif media_types.is_json_body(response.headers.get("content-type")):
                parsed = jsonrpc_message_adapter.validate_json(body, by_name=False)
            else:
                parsed = None
            if isinstance(parsed, JSONRPCError):
                error = parsed.error
        except Exception:  # a body that is not a JSON-RPC error: the status speaks instead
            logger.debug("non-2xx body was not a JSON-RPC error", exc_info=True)
        if error is None:
            if response.status_code == 404:
                error = (
                    ErrorData(code=METHOD_NOT_FOUND, message="Not Found")
                    if self.session_id is None
                    else ErrorData(code=INVALID_REQUEST, message="Session terminated")
                )
            else:
                error = ErrorData(code=INTERNAL_ERROR, message=f"Server returned HTTP {response.status_code}")
        await ctx.read_stream_writer.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))

    def _deliverable(self, value: Any, confirms: bool) -> SessionMessage:
        """A decoded reply as the SDK's message; an `initialize` result may confirm native bytes."""
        if confirms and isinstance(value, dict):
            result = value.get("result")
            if isinstance(result, dict) and "protocolVersion" in result:
                self.native_bytes_in_force = negotiation.confirms(result.get("capabilities"))
            elif isinstance(result, dict) and "supportedVersions" in result:  # server/discover, read as MessagePack
                self.native_advertised = negotiation.confirms(result.get("capabilities"))
        return session_message(value)

    async def _read_msgpack_reply(
        self, response: httpx2.Response, ctx: RequestContext, request_id: RequestId, native: bool, confirms: bool,
        keep_bytes: bool,
    ) -> None:
        try:
            body = await read_capped(response, self.limits.max_frame_bytes)
            value = decode_msgpack(body, self.limits, native=native, keep_bytes=keep_bytes)
            reply = self._deliverable(value, confirms)
        except (httpx2.StreamError, httpx2.DecodingError, WireError, ValueError, ReplyTooLarge, UnofferedCoding) as exc:
            await self._refuse_reply(ctx, request_id, exc)
            return
        await ctx.read_stream_writer.send(reply)

    async def _refuse_reply(self, ctx: RequestContext, request_id: RequestId, exc: Exception) -> None:
        """A reply that could not be read (over a cap, a coding not offered or broken, bad wire bytes): its
        request's answer is the error (SPEC 10.4)."""
        logger.warning("refused a MessagePack reply: %s", exc)
        code = exc.jsonrpc_code if isinstance(exc, WireError) else -32700
        data = {"reason": exc.code} if isinstance(exc, WireError) else None
        error = ErrorData(code=code, message=str(exc), data=data)
        await ctx.read_stream_writer.send(SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))

    # --- frame streams (SPEC 9.3) --------------------------------------------------------------------------

    async def _consume_frames(
        self,
        response: httpx2.Response,
        read_stream_writer: StreamWriter,
        *,
        native: bool,
        confirms: bool = False,
        keep_bytes: bool = False,
        original_request_id: RequestId | None = None,
        on_event_id: Callable[[str], Awaitable[None]] | None = None,
        cursor: dict[str, Any] | None = None,
    ) -> bool:
        """Read one frame stream; True once the request's response arrived. `cursor` keeps the last event id."""
        pending_event: str | None = None
        cursor = cursor if cursor is not None else {}
        check_reply_coding(response)  # a stream in a coding not offered ends here (SPEC 10.4)
        async for payload in read_frames(response.aiter_bytes(), self.limits.max_frame_bytes):
            try:
                value = decode_msgpack(
                    payload, self.limits, native=native, control=True,
                    keep_bytes=keep_bytes and (lambda v: v.get("id") == original_request_id and "method" not in v),
                )
            except WireError as exc:
                # SPEC 9.4: a refused frame loses that message only; the stream goes on.
                logger.warning("refused a frame: %s", exc)
                if exc.has_id and exc.kind == "response" and original_request_id is not None:
                    error = ErrorData(code=exc.jsonrpc_code, message=str(exc), data={"reason": exc.code})
                    await read_stream_writer.send(
                        SessionMessage(JSONRPCError(jsonrpc="2.0", id=original_request_id, error=error))
                    )
                    return True
                pending_event = None
                continue
            if is_control_map(value):
                if isinstance(value.get("id"), str):
                    pending_event = value["id"]
                prime = value.get("prime")
                if isinstance(prime, str):
                    cursor["last_event_id"] = prime
                    if isinstance(value.get("retry"), int):
                        cursor["retry_ms"] = value["retry"]
                    if on_event_id is not None:
                        await on_event_id(prime)
                continue
            message = self._deliverable(value, confirms)
            is_response = "result" in value or "error" in value
            if is_response and original_request_id is not None and "method" not in value:
                message.message.id = original_request_id  # type: ignore[union-attr]  # a response (checked above)
            await read_stream_writer.send(message)
            if pending_event is not None:
                cursor["last_event_id"] = pending_event
                if on_event_id is not None:
                    await on_event_id(pending_event)
                pending_event = None
            if is_response and "method" not in value:
                return True
        return False

    async def _read_frame_stream(
        self, response: httpx2.Response, ctx: RequestContext, native: bool, confirms: bool, keep_bytes: bool
    ) -> None:
        assert isinstance(ctx.session_message.message, JSONRPCRequest)
        request_id = ctx.session_message.message.id
        on_event_id = ctx.metadata.on_resumption_token_update if ctx.metadata else None
        cursor: dict[str, Any] = {}
        for attempt in range(MAX_RECONNECTION_ATTEMPTS + 1):
            try:
                if await self._consume_frames(
                    response, ctx.read_stream_writer, native=native, confirms=confirms, keep_bytes=keep_bytes,
                    original_request_id=request_id, on_event_id=on_event_id, cursor=cursor,
                ):
                    return
            except (WireError, httpx2.TransportError, httpx2.DecodingError, UnofferedCoding) as exc:
                logger.info("frame stream for %r ended: %s", request_id, exc)
            last_event_id = cursor.get("last_event_id")
            if last_event_id is None or attempt == MAX_RECONNECTION_ATTEMPTS:
                break
            # Resume (SPEC 9.3): GET with Last-Event-ID, the server replays what came after it.
            await anyio.sleep(cursor.get("retry_ms", DEFAULT_RECONNECTION_DELAY_MS) / 1000)
            headers = self._prepare_headers()
            headers["accept"] = media_types.CLIENT_GET_ACCEPT
            headers[LAST_EVENT_ID] = last_event_id
            try:
                async with stream_within_origin(ctx.client, "GET", self.url, headers=headers) as resumed:
                    if resumed.status_code >= 400:
                        continue
                    if await self._consume_frames(
                        resumed, ctx.read_stream_writer, native=native, keep_bytes=keep_bytes,
                        original_request_id=request_id, on_event_id=on_event_id, cursor=cursor,
                    ):
                        return
            except (WireError, httpx2.TransportError, httpx2.DecodingError, UnofferedCoding) as exc:
                logger.info("resumed frame stream for %r ended: %s", request_id, exc)
        await self._resolve_abandoned_request(
            ctx.read_stream_writer, request_id, "frame stream ended without a response", code=CONNECTION_CLOSED
        )

    # --- the GET stream --------------------------------------------------------------------------------------

    async def handle_get_stream(self, client: httpx2.AsyncClient, read_stream_writer: StreamWriter) -> None:
        if self.wire == "json" or not self.server_speaks_msgpack:
            await super().handle_get_stream(client, read_stream_writer)
            return
        cursor: dict[str, Any] = {}
        attempt = 0
        while attempt < MAX_RECONNECTION_ATTEMPTS:
            if not self.session_id:
                return
            headers = self._prepare_headers()
            headers["accept"] = media_types.CLIENT_GET_ACCEPT
            if cursor.get("last_event_id"):
                headers[LAST_EVENT_ID] = cursor["last_event_id"]
            try:
                async with stream_within_origin(client, "GET", self.url, headers=headers) as response:
                    if response.status_code in (405, 409) or _unfollowed_redirect(response) is not None:
                        return  # no GET stream on this server (or one is open already): nothing to retry
                    response.raise_for_status()
                    kind = media_types.media_type(response.headers.get("content-type"))[0]
                    if kind == media_types.FRAME_STREAM:
                        await self._consume_frames(
                            response, read_stream_writer, native=self.native_bytes_in_force, cursor=cursor
                        )
                    else:
                        async for sse in httpx2.EventSource(response, max_event_size=self.max_sse_event_size):
                            if sse.id:
                                cursor["last_event_id"] = sse.id
                            if sse.retry is not None:
                                cursor["retry_ms"] = sse.retry
                            await self._handle_sse_event(sse, read_stream_writer)
                    attempt = 0
            except Exception:
                logger.debug("GET stream error", exc_info=True)
                attempt += 1
            await anyio.sleep(cursor.get("retry_ms", DEFAULT_RECONNECTION_DELAY_MS) / 1000)


class _SeenSendStream(ContextSendStream[SessionMessage | Exception]):
    """The stream to the SDK, showing each notification to the tools/list prefetch as it goes (it drops its kept
    list when the server says the tool list changed, on whichever reply or stream that arrives: the SDK's own
    readers of JSON and SSE write here too)."""

    def __init__(self, inner: Any, prefetch: ToolsListPrefetch) -> None:
        super().__init__(inner)
        self._prefetch = prefetch

    async def send(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCNotification):
            self._prefetch.saw({"method": item.message.method})
        await super().send(item)


@asynccontextmanager
async def streamable_http_client(
    url: str,
    *,
    native_bytes: bool = False,
    wire: Wire = "auto",
    http_client: httpx2.AsyncClient | None = None,
    headers: dict[str, str] | None = None,
    auth: httpx2.Auth | None = None,
    terminate_on_close: bool = True,
    max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE,
    limits: ReceiveLimits | None = None,
    prefetch_tools_list: bool | None = None,
) -> AsyncGenerator[TransportStreams, None]:
    """Drop-in for `mcp.client.streamable_http.streamable_http_client`, on msgpack-v1 where the server speaks it.

    Args:
        url: The MCP server endpoint URL.
        native_bytes: Offer the native-bytes extension (SPEC 8) on MessagePack; media then arrive as bin and
            reach the SDK as the base64 its models hold.
        wire: 'auto' (MessagePack, JSON with any server that does not speak it), 'msgpack' or 'json'.
        http_client: An `httpx2.AsyncClient` to use, as the SDK's function takes it (its headers and auth
            apply); when None, one is made with the SDK's timeouts and `headers`/`auth`.
        headers, auth: For the client made when `http_client` is None.
        terminate_on_close: DELETE the session when the context exits.
        max_sse_event_size: Bytes in one SSE event (JSON servers); None disables the limit.
        limits: What a MessagePack reply may hold (SPEC 4); the defaults are SPEC's.
        prefetch_tools_list: On 2026-07-28, post a `tools/list` beside the SDK's `server/discover` and answer the
            SDK's first `tools/list` from it (python/README.md, "Tools list prefetch"). None (the default): on,
            unless `http_client` or `auth` is given (a client or auth of the caller's may run OAuth or count
            requests; a token the discover has to refresh would be refused on the prefetch too).

    Yields:
        (read_stream, write_stream) of `SessionMessage`, as the SDK's function does.
    """
    client = http_client if http_client is not None else create_mcp_http_client(headers=headers, auth=auth)
    if prefetch_tools_list is None:
        prefetch_tools_list = http_client is None and auth is None
    transport = MsgpackStreamableHTTPTransport(
        url, wire=wire, native_bytes=native_bytes, limits=limits, max_sse_event_size=max_sse_event_size,
        prefetch_tools_list=prefetch_tools_list,
    )
    async with contextlib.AsyncExitStack() as stack:
        if http_client is None:
            await stack.enter_async_context(client)
        to_sdk, from_transport = anyio.create_memory_object_stream[Any](0)
        read_stream_writer = _SeenSendStream(to_sdk, transport.prefetch)
        read_stream = ContextReceiveStream[SessionMessage | Exception](from_transport)
        write_stream, write_stream_reader = create_context_streams[SessionMessage](0)
        async with read_stream_writer, read_stream, write_stream, write_stream_reader, anyio.create_task_group() as tg:

            def start_get_stream() -> None:
                tg.start_soon(transport.handle_get_stream, client, read_stream_writer)

            transport.background = tg

            tg.start_soon(
                transport.post_writer, client, write_stream_reader, read_stream_writer, write_stream,
                start_get_stream, tg,
            )
            try:
                yield read_stream, write_stream
            finally:
                transport.prefetch.drop()
                if transport.session_id and terminate_on_close:
                    await transport.terminate_session(client)
                tg.cancel_scope.cancel()
        await resync_tracer()
