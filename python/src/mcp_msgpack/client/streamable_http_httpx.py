"""`streamable_http_client` for the SDK lines without mcp 2.3's HTTP internals (mcp 1.24-1.x, 2.0-2.2).

`client/streamable_http.py` subclasses the SDK's transport of mcp 2.3 and reuses its internals. Those internals
differ on every older line (1.x posts with `httpx` and `httpx_sse`, wraps each message in a RootModel, and
its private methods change signature from release to release), so this module owns the whole Streamable HTTP
client instead, on public names only: the HTTP library the SDK's own transport imports (`httpx` on 1.x,
`httpx2` on 2.x, found in its module by name), the session streams of `SessionMessage`,
`ClientMessageMetadata` for resumption and per-message headers, and `shared/sdk_compat.py` for the models.

It speaks what the 2.3 path speaks (SPEC 9): MessagePack bodies and frame streams with native bytes (SPEC 8),
JSON bodies and SSE from a server that answers so, and JSON for good with a server that shows it does not read
MessagePack (SPEC 9.2). It yields what the installed SDK's own `streamable_http_client` yields, so it drops in
where that one is used: `(read, write, get_session_id)` on 1.x, `(read, write)` on 2.x.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import pydantic_core
from anyio.abc import TaskGroup

import mcp.client.streamable_http as _sdk_http
from mcp.shared.message import ClientMessageMetadata, SessionMessage

from ..shared import http_media_types as media_types
from ..shared import http_negotiation as negotiation
from ..shared.extension import NATIVE_RESULT_META
from ..shared.http_client_wire import ClientWire, Wire
from ..shared.frame_stream import is_control_map, read_frames
from ..shared.http_codec import decode_msgpack, encode_msgpack, message_dict
from ..shared.http_opening import InitializedInBackground, posts_initialized_in_background
from ..shared.message import to_session_message
from ..shared.sdk_compat import WRAPPED_MESSAGES, create_message_streams
from ..shared.sse_events import sse_events
from ..wire import ReceiveLimits, WireError
from .tools_list_prefetch import ToolsListPrefetch

logger = logging.getLogger(__name__)

httpx: Any = getattr(_sdk_http, "httpx2", None) or getattr(_sdk_http, "httpx")  # by name: 2.3's module has none
"""The HTTP client library the installed SDK's own transport uses: `httpx` on 1.x, `httpx2` (the same API) on
2.x. Its clients are the ones users already configure and pass as `http_client`."""

ReadWriter = Any  # the session's send stream of SessionMessage | Exception (memory or context streams by line)

MCP_SESSION_ID = "mcp-session-id"
MCP_PROTOCOL_VERSION = "mcp-protocol-version"
LAST_EVENT_ID = "last-event-id"
DEFAULT_MAX_SSE_EVENT_SIZE: int | None = getattr(_sdk_http, "DEFAULT_MAX_SSE_EVENT_SIZE", None)
"""Bytes in one SSE event from a JSON server, as the installed SDK's reader allows: no limit (None) on 1.x and
2.0-2.2, whose readers have none, so that what the SDK's client reads this one reads too; 1 MiB on 2.3+."""
DEFAULT_RECONNECTION_DELAY_MS = 1000
MAX_RECONNECTION_ATTEMPTS = 2
# JSON-RPC error codes (the SDK's values, the same on every line).
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INTERNAL_ERROR, CONNECTION_CLOSED = -32700, -32600, -32601, -32603, -32000


def _header(headers: dict[str, str] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value
    return None


def _error(request_id: Any, code: int, message: str, data: Any = None) -> SessionMessage:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return to_session_message({"jsonrpc": "2.0", "id": request_id, "error": error})


def _stamped(metadata: ClientMessageMetadata | None) -> dict[str, str]:
    """The per-message headers 2.x's session asks for (`Mcp-Method`, `Mcp-Name`, the revision); none on 1.x."""
    return dict(getattr(metadata, "headers", None) or {})


def _is_response(value: dict[str, Any]) -> bool:
    return ("result" in value or "error" in value) and "method" not in value


def _take_native_result_marker(body: dict[str, Any]) -> bool:
    """`call_tool_native`'s private `_meta` marker, removed before the request leaves the process; whether the
    request carried it (its result's media then reach the caller as bytes)."""
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or NATIVE_RESULT_META not in meta:
        return False
    del meta[NATIVE_RESULT_META]
    if not meta:
        del body["params"]["_meta"]
    return True


@dataclass
class _Reading:
    """One stream being read for a request (or, with no request id, the standing GET stream): how its
    MessagePack is decoded, and where it stopped, to resume from."""

    request_id: Any
    native: bool = False
    confirms: bool = False
    keep_bytes: bool = False
    on_event_id: Callable[[str], Awaitable[None]] | None = None
    last_event_id: str | None = None
    retry_ms: int = DEFAULT_RECONNECTION_DELAY_MS

    def keeps(self, value: Any) -> bool:
        """Whether a decoded message's media stay bytes: only the response to a `call_tool_native` request."""
        return self.keep_bytes and isinstance(value, dict) and value.get("id") == self.request_id and _is_response(value)


class MsgpackStreamableHTTPTransport(ClientWire):
    """A Streamable HTTP client transport posting and reading msgpack-v1 (SPEC 9) with JSON fallback, on the
    SDK's HTTP library. `wire`: see `ClientWire` (with `'auto'` the message that found out is re-sent as JSON)."""

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
        super().__init__(url, wire, native_bytes)
        self.limits = limits or ReceiveLimits()
        self.max_sse_event_size = max_sse_event_size
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self._in_flight: dict[Any, anyio.CancelScope] = {}
        """Each request's POST scope: on 2026-07-28 closing its stream is how a request is cancelled."""
        self.opening = InitializedInBackground()
        """`notifications/initialized` posted without waiting (shared/http_opening.py)."""
        self.prefetch = ToolsListPrefetch(prefetch_tools_list)
        """The `tools/list` posted beside a 2026-07-28 `server/discover`, kept for the SDK's own (2.x)."""

    def get_session_id(self) -> str | None:
        return self.session_id

    def _headers(self, accept: str | None = None) -> dict[str, str]:
        headers = {"accept": accept or (media_types.CLIENT_ACCEPT if self.wire == "msgpack" else media_types.JSON_ACCEPT)}
        if self.session_id:
            headers[MCP_SESSION_ID] = self.session_id
        if self.protocol_version:
            headers[MCP_PROTOCOL_VERSION] = self.protocol_version
        return headers

    def _deliverable(self, value: Any, confirms: bool, request_id: Any = None) -> SessionMessage:
        """A decoded reply as the SDK's message: an `initialize` result sets the protocol version header and may
        confirm native bytes; a response read on a resumed stream takes the id the session waits for."""
        if isinstance(value, dict):
            self.prefetch.saw(value)
            result = value.get("result")
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str) and "capabilities" in result:
                self.protocol_version = result["protocolVersion"]
                if confirms:
                    self.native_bytes_in_force = negotiation.confirms(result.get("capabilities"))
            if request_id is not None and _is_response(value):
                value["id"] = request_id
        return to_session_message(value)

    # --- the session's writes --------------------------------------------------------------------------------

    async def post_writer(
        self, client: Any, write_reader: Any, read_writer: ReadWriter, start_get_stream: Callable[[], None], tg: TaskGroup
    ) -> None:
        """Sends each message of the session: a request in its own task (replies may come in any order), a
        notification or response in turn; the GET stream opens once the session is initialized."""
        try:
            async with write_reader:
                async for session_message in write_reader:
                    metadata = session_message.metadata if isinstance(session_message.metadata, ClientMessageMetadata) else None
                    body = message_dict(session_message)
                    self._note_protocol_version(body, metadata)
                    if self._cancels_in_flight(body):
                        continue
                    if "id" in body and "method" in body:
                        prefetch = self.prefetch.prefetch_for(body, _stamped(metadata))
                        scope = self._in_flight[body["id"]] = anyio.CancelScope()
                        tg.start_soon(self._send_request, client, body, metadata, read_writer, scope)
                        if prefetch is not None:  # beside the discover; its answer goes only to the kept result
                            self.prefetch.start(prefetch, lambda request, headers: self._post_prefetch(client, request, headers), tg)
                    elif self.wire == "msgpack" and posts_initialized_in_background(body, self.server_speaks_msgpack, client.auth):
                        tg.start_soon(self._post_initialized, client, body, read_writer, self.opening.start())
                        start_get_stream()
                    else:
                        await self._post(client, body, read_writer, None)
                        if body.get("method") == "notifications/initialized":
                            start_get_stream()
        except Exception:  # the session sees its streams close
            logger.exception("Streamable HTTP writer failed")
        finally:
            await read_writer.aclose()

    def _note_protocol_version(self, body: dict[str, Any], metadata: ClientMessageMetadata | None) -> None:
        """The revision later POSTs, GETs and DELETEs carry: 2.x's session stamps it on each message's
        metadata (read here in wire order, as the SDK's transport does); `initialize` starts afresh."""
        if body.get("method") == "initialize":
            self.protocol_version = None
            return
        stamped = _header(getattr(metadata, "headers", None), MCP_PROTOCOL_VERSION)
        if stamped is not None:
            self.protocol_version = stamped

    def _cancels_in_flight(self, body: dict[str, Any]) -> bool:
        """A 2026-07-28 `notifications/cancelled` for a request still posting: its stream is closed instead of
        the notification being sent (that revision's HTTP cancellation)."""
        if body.get("method") != "notifications/cancelled" or not negotiation.is_modern_request(
            {negotiation.PROTOCOL_VERSION_META: self.protocol_version}
        ):
            return False
        params = body.get("params")
        scope = self._in_flight.get(params.get("requestId")) if isinstance(params, dict) else None
        if scope is None:
            return False
        scope.cancel()
        return True

    async def _send_request(
        self, client: Any, body: dict[str, Any], metadata: ClientMessageMetadata | None, read_writer: ReadWriter,
        scope: anyio.CancelScope,
    ) -> None:
        request_id = body["id"]
        try:
            with scope:
                resumption = metadata.resumption_token if metadata is not None else None
                answer = await self.prefetch.answer(body, _stamped(metadata), resumption)
                if answer is not None:
                    await read_writer.send(to_session_message(answer))
                elif metadata is not None and metadata.resumption_token:
                    reading = _Reading(
                        request_id, native=self.native_bytes_in_force, keep_bytes=_take_native_result_marker(body),
                        on_event_id=metadata.on_resumption_token_update, last_event_id=metadata.resumption_token,
                    )
                    if not await self._resume(client, read_writer, reading):
                        await read_writer.send(_error(request_id, CONNECTION_CLOSED, "resumed stream ended without a response"))
                else:
                    await self._post(client, body, read_writer, metadata)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the session is gone: nobody waits for this reply
        except (httpx.TransportError, httpx.StreamError) as exc:
            await read_writer.send(_error(request_id, CONNECTION_CLOSED, f"HTTP request failed: {exc}"))
        except Exception as exc:  # this request fails, not the connection with every other request on it
            logger.exception("request %r failed", request_id)
            await read_writer.send(_error(request_id, INTERNAL_ERROR, f"request failed: {exc}"))
        finally:
            if self._in_flight.get(request_id) is scope:
                del self._in_flight[request_id]

    async def _post_initialized(self, client: Any, body: dict[str, Any], read_writer: ReadWriter, posted: anyio.Event) -> None:
        """The background POST of `notifications/initialized`: a failure is logged (the caller has nothing to
        retry; the session's next requests say it too)."""
        try:
            self.opening.accepted = await self._post(client, body, read_writer, None) < 300
        except Exception as exc:  # a network failure: the requests that follow report theirs
            logger.warning("notifications/initialized was not delivered to %s: %s", self.url, exc)
        finally:
            posted.set()

    async def _post(
        self, client: Any, body: dict[str, Any], read_writer: ReadWriter, metadata: ClientMessageMetadata | None,
        retry: bool = True, keep_bytes: bool | None = None,
    ) -> int:
        """One message's POST and its reply; the reply's HTTP status."""
        if keep_bytes is None:
            keep_bytes = _take_native_result_marker(body)
        request_id = body.get("id") if "method" in body else None
        if self.wire == "json":
            return await self._post_json(client, body, read_writer, request_id, metadata)
        json_body = _without_offer(body)  # what a fallback re-sends, taken before the offer goes in
        offered = self.native_bytes and negotiation.offer_in(body)
        headers = {**self._headers(), **_stamped(metadata), "content-type": media_types.MSGPACK}
        async with client.stream("POST", self.url, content=encode_msgpack(body, native=False), headers=headers) as response:
            judged = self.judge_reply(
                response.status_code, response.headers.get("content-type"), response.headers.get(media_types.WIRE_HEADER)
            )
            if judged == "resend":  # refused unread (SPEC 9.2): the same message again, as JSON
                await response.aclose()
                return await self._post_json(client, json_body, read_writer, request_id, metadata)
            if request_id is not None and retry and await self.opening.retries(response, self.limits):
                await response.aclose()
                return await self._post(client, body, read_writer, metadata, retry=False, keep_bytes=keep_bytes)
            native = offered or self.native_bytes_in_force
            await self._read_reply(
                client, response, read_writer, request_id, metadata, native=native, confirms=offered, keep_bytes=keep_bytes
            )
            return int(response.status_code)

    async def _post_prefetch(self, client: Any, request: dict[str, Any], message_headers: dict[str, str]) -> list[Any] | None:
        """The prefetched `tools/list` (tools_list_prefetch.py), posted as the SDK's own would be on the wire in
        use, its answer's messages as dicts. It teaches the transport nothing (no wire, session or protocol
        version learned) and reports nothing: any failure is None. An answer to a MessagePack body counts only
        from a server that has shown it speaks msgpack-v1."""
        wire = self.wire
        if wire == "msgpack":
            content, content_type = encode_msgpack(request, native=False), media_types.MSGPACK
        else:
            content, content_type = pydantic_core.to_json(request), media_types.JSON
        headers = {**self._headers(), **message_headers, "content-type": content_type}
        async with client.stream("POST", self.url, content=content, headers=headers) as response:
            reply_type = response.headers.get("content-type")
            kind = media_types.media_type(reply_type)[0]
            if not self.counts_unlearned(wire, response.status_code, reply_type, response.headers.get(media_types.WIRE_HEADER)):
                return None
            if media_types.is_msgpack_body(reply_type):
                return [decode_msgpack(await response.aread(), self.limits, native=False)]
            if media_types.is_json_body(reply_type):
                return [pydantic_core.from_json(await response.aread())]
            if kind not in (media_types.FRAME_STREAM, media_types.SSE):
                return None
            messages: list[Any] = []
            async for what, value in self._messages(response, kind == media_types.FRAME_STREAM, _Reading(None)):
                if what == "refused":
                    return None
                if what == "message":
                    messages.append(value)
                    if isinstance(value, dict) and _is_response(value):
                        break
            return messages

    async def _post_json(
        self, client: Any, body: dict[str, Any], read_writer: ReadWriter, request_id: Any, metadata: ClientMessageMetadata | None
    ) -> int:
        headers = {**self._headers(media_types.JSON_ACCEPT), **_stamped(metadata), "content-type": media_types.JSON}
        async with client.stream("POST", self.url, content=pydantic_core.to_json(body), headers=headers) as response:
            await self._read_reply(
                client, response, read_writer, request_id, metadata, native=False, confirms=False, keep_bytes=False
            )
            return int(response.status_code)

    # --- replies ---------------------------------------------------------------------------------------------

    async def _read_reply(
        self, client: Any, response: Any, read_writer: ReadWriter, request_id: Any,
        metadata: ClientMessageMetadata | None, *, native: bool, confirms: bool, keep_bytes: bool,
    ) -> None:
        """A POST's reply: nothing for a notification; for a request its response in whichever form it came."""
        session_id = response.headers.get(MCP_SESSION_ID)
        if session_id and response.status_code < 400:
            self.session_id = session_id
        if request_id is None:
            return
        status, content_type = response.status_code, response.headers.get("content-type")
        if status == 202:
            await read_writer.send(_error(request_id, INVALID_REQUEST, "server answered a request with 202 Accepted"))
        elif status >= 400:
            await read_writer.send(await self._http_error(response, request_id))
        elif media_types.is_msgpack_body(content_type):
            try:
                value = decode_msgpack(await response.aread(), self.limits, native=native, keep_bytes=keep_bytes)
                reply = self._deliverable(value, confirms)
            except (WireError, ValueError) as exc:
                logger.warning("refused a MessagePack reply: %s", exc)
                code = exc.jsonrpc_code if isinstance(exc, WireError) else PARSE_ERROR
                reply = _error(request_id, code, str(exc), {"reason": exc.code} if isinstance(exc, WireError) else None)
            await read_writer.send(reply)
        elif media_types.media_type(content_type)[0] in (media_types.FRAME_STREAM, media_types.SSE):
            on_event_id = metadata.on_resumption_token_update if metadata is not None else None
            reading = _Reading(request_id, native=native, confirms=confirms, keep_bytes=keep_bytes, on_event_id=on_event_id)
            await self._read_stream(client, response, read_writer, reading)
        elif media_types.is_json_body(content_type):
            try:
                reply = self._deliverable(pydantic_core.from_json(await response.aread()), confirms=False)
            except ValueError as exc:
                reply = _error(request_id, PARSE_ERROR, f"unreadable JSON reply: {exc}")
            await read_writer.send(reply)
        else:
            await read_writer.send(_error(request_id, INVALID_REQUEST, f"Unexpected content type: {content_type}"))

    async def _http_error(self, response: Any, request_id: Any) -> SessionMessage:
        """A 4xx/5xx to a request: its JSON-RPC error if the body holds one, else one made from the status."""
        body = await response.aread()
        content_type = response.headers.get("content-type")
        try:
            if media_types.is_msgpack_body(content_type):
                value = decode_msgpack(body, self.limits, native=False)
            elif media_types.is_json_body(content_type):
                value = pydantic_core.from_json(body)
            else:
                value = None
            if isinstance(value, dict) and isinstance(value.get("error"), dict):
                return to_session_message({**value, "id": request_id})
        except Exception:  # a body that is not a JSON-RPC error: the status speaks instead
            logger.debug("non-2xx body was not a JSON-RPC error", exc_info=True)
        if response.status_code == 404:
            if self.session_id is None:
                return _error(request_id, METHOD_NOT_FOUND, "Not Found")
            return _error(request_id, INVALID_REQUEST, "Session terminated")
        return _error(request_id, INTERNAL_ERROR, f"Server returned HTTP {response.status_code}")

    async def _messages(self, response: Any, frames: bool, reading: _Reading) -> AsyncIterator[tuple[str, Any]]:
        """One stream body's contents in order: ("message", value), ("event", id) once the event before it is
        delivered (or a priming event), ("refused", WireError) for a refused response frame. Event ids and
        retry go to `reading`. A refused frame loses that message only (SPEC 9.4)."""
        if not frames:
            async for event in sse_events(response.aiter_lines(), self.max_sse_event_size):
                if event.retry is not None:
                    reading.retry_ms = event.retry
                if event.data:
                    yield "message", pydantic_core.from_json(event.data)
                if event.id:
                    reading.last_event_id = event.id
                    yield "event", event.id
            return
        pending_event: str | None = None
        async for payload in read_frames(response.aiter_bytes(), self.limits.max_frame_bytes):
            try:
                value = decode_msgpack(payload, self.limits, native=reading.native, control=True, keep_bytes=reading.keeps)
            except WireError as exc:
                logger.warning("refused a frame: %s", exc)
                pending_event = None
                if exc.has_id and exc.kind == "response":
                    yield "refused", exc
                continue
            if is_control_map(value):
                if isinstance(value.get("id"), str):
                    pending_event = value["id"]
                if isinstance(value.get("prime"), str):
                    reading.last_event_id = value["prime"]
                    if isinstance(value.get("retry"), int):
                        reading.retry_ms = value["retry"]
                    yield "event", value["prime"]
                continue
            yield "message", value
            if pending_event is not None:
                reading.last_event_id = pending_event
                yield "event", pending_event
                pending_event = None

    async def _consume(self, response: Any, read_writer: ReadWriter, reading: _Reading) -> bool:
        """Delivers one stream's messages; True once the response to `reading.request_id` arrived."""
        frames = media_types.media_type(response.headers.get("content-type"))[0] == media_types.FRAME_STREAM
        async for kind, value in self._messages(response, frames, reading):
            if kind == "refused":
                await read_writer.send(_error(reading.request_id, value.jsonrpc_code, str(value), {"reason": value.code}))
                return True
            if kind == "event":
                if reading.on_event_id is not None:
                    await reading.on_event_id(value)
                continue
            try:
                message = self._deliverable(value, reading.confirms, reading.request_id)
            except ValueError as exc:  # pydantic's ValidationError: not a JSON-RPC message
                await read_writer.send(exc)
                continue
            await read_writer.send(message)
            if reading.request_id is not None and _is_response(value):
                return True
        return False

    async def _read_stream(self, client: Any, response: Any, read_writer: ReadWriter, reading: _Reading) -> None:
        """A request's reply stream, resumed with `Last-Event-ID` where it ends early (SPEC 9.3; MCP's SSE)."""
        try:
            if await self._consume(response, read_writer, reading):
                return
        except (WireError, ValueError, httpx.TransportError) as exc:
            logger.info("reply stream for %r ended: %s", reading.request_id, exc)
        reading.confirms = False
        for _ in range(MAX_RECONNECTION_ATTEMPTS):
            if reading.last_event_id is None:
                break
            await anyio.sleep(reading.retry_ms / 1000)
            if await self._resume(client, read_writer, reading):
                return
        await read_writer.send(_error(reading.request_id, CONNECTION_CLOSED, "reply stream ended without a response"))

    def _get_headers(self, reading: _Reading) -> dict[str, str]:
        speaks_msgpack = self.server_speaks_msgpack and self.wire == "msgpack"
        headers = self._headers(media_types.CLIENT_GET_ACCEPT if speaks_msgpack else media_types.SSE)
        if reading.last_event_id:
            headers[LAST_EVENT_ID] = reading.last_event_id
        return headers

    async def _resume(self, client: Any, read_writer: ReadWriter, reading: _Reading) -> bool:
        """One GET that resumes a request's stream after `reading.last_event_id` (the server replays what came
        after it); True once the response arrived."""
        try:
            async with client.stream("GET", self.url, headers=self._get_headers(reading)) as response:
                return response.status_code < 400 and await self._consume(response, read_writer, reading)
        except (WireError, ValueError, httpx.TransportError) as exc:
            logger.info("resumed stream for %r ended: %s", reading.request_id, exc)
            return False

    # --- the GET stream and the end of the session -----------------------------------------------------------

    async def handle_get_stream(self, client: Any, read_writer: ReadWriter) -> None:
        """The server's own messages on a standing GET (frames on msgpack-v1, SSE on JSON), reconnected twice."""
        reading = _Reading(request_id=None, native=self.native_bytes_in_force)
        attempt = 0
        while attempt < MAX_RECONNECTION_ATTEMPTS and self.session_id:
            try:
                async with client.stream("GET", self.url, headers=self._get_headers(reading)) as response:
                    if response.status_code in (405, 409) or 300 <= response.status_code < 400:
                        return  # no GET stream on this server (or one is open already): nothing to retry
                    response.raise_for_status()
                    await self._consume(response, read_writer, reading)
                    attempt = 0
            except Exception:
                logger.debug("GET stream error", exc_info=True)
                attempt += 1
            await anyio.sleep(reading.retry_ms / 1000)

    async def terminate_session(self, client: Any) -> None:
        """DELETE the session (a server that does not allow it answers 405)."""
        if not self.session_id:
            return
        try:
            response = await client.delete(self.url, headers=self._headers())
            if response.status_code not in (200, 202, 204, 405):
                logger.warning("session termination failed: HTTP %s", response.status_code)
        except Exception as exc:
            logger.warning("session termination failed: %s", exc)


def _without_offer(body: dict[str, Any]) -> dict[str, Any]:
    """A copy of `body` that `negotiation.offer_in` leaves alone: it replaces entries of `params` and of
    `params._meta`, so those two dicts are copied."""
    params = body.get("params")
    if not isinstance(params, dict):
        return dict(body)
    params = dict(params)
    if isinstance(params.get("_meta"), dict):
        params["_meta"] = dict(params["_meta"])
    return {**body, "params": params}


def _default_client(headers: dict[str, str] | None, auth: Any) -> Any:
    """An HTTP client with the SDK's timeouts (30 s, 300 s for a stream's read) that follows redirects."""
    return httpx.AsyncClient(headers=headers, auth=auth, follow_redirects=True, timeout=httpx.Timeout(30, read=300))


@asynccontextmanager
async def streamable_http_client(
    url: str,
    *,
    native_bytes: bool = False,
    wire: Wire = "auto",
    http_client: Any = None,
    headers: dict[str, str] | None = None,
    auth: Any = None,
    terminate_on_close: bool = True,
    max_sse_event_size: int | None = DEFAULT_MAX_SSE_EVENT_SIZE,
    limits: ReceiveLimits | None = None,
    prefetch_tools_list: bool | None = None,
) -> AsyncGenerator[Any, None]:
    """Drop-in for the installed SDK's `mcp.client.streamable_http.streamable_http_client`, on msgpack-v1 where
    the server speaks it. The arguments are those of the mcp 2.3 path (`client/streamable_http.py`);
    `http_client` is an `httpx.AsyncClient` (its headers and auth apply). `prefetch_tools_list` as there (2.x:
    1.x never opens with `server/discover`).

    Yields what the SDK's function yields on this line: `(read_stream, write_stream, get_session_id)` on 1.x,
    `(read_stream, write_stream)` on 2.x.
    """
    client = http_client if http_client is not None else _default_client(headers, auth)
    if prefetch_tools_list is None:
        prefetch_tools_list = http_client is None and auth is None
    transport = MsgpackStreamableHTTPTransport(
        url, wire=wire, native_bytes=native_bytes, limits=limits, max_sse_event_size=max_sse_event_size,
        prefetch_tools_list=prefetch_tools_list,
    )
    async with contextlib.AsyncExitStack() as stack:
        if http_client is None:
            await stack.enter_async_context(client)
        read_writer, read_stream = create_message_streams(SessionMessage | Exception)
        write_stream, write_reader = create_message_streams(SessionMessage)
        async with read_writer, read_stream, write_stream, write_reader, anyio.create_task_group() as tg:

            def start_get_stream() -> None:
                tg.start_soon(transport.handle_get_stream, client, read_writer)

            tg.start_soon(transport.post_writer, client, write_reader, read_writer, start_get_stream, tg)
            try:
                if WRAPPED_MESSAGES:
                    yield read_stream, write_stream, transport.get_session_id
                else:
                    yield read_stream, write_stream
            finally:
                transport.prefetch.drop()
                if transport.session_id and terminate_on_close:
                    await transport.terminate_session(client)
                tg.cancel_scope.cancel()


__all__ = ["MsgpackStreamableHTTPTransport", "streamable_http_client"]
