"""MCP 2026-07-28 over msgpack-v1 (SPEC 9.5): one stateless request per POST, its headers checked against the body.

JSON requests that prefer JSON replies go to the SDK's own handler. The others are decoded by `Content-Type`
and checked with the SDK's own ladder (`classify_inbound_request`, the `Mcp-Param-*` check), on the decoded
body, as SPEC 9.5 asks; the reply is one body on the wire `Accept` prefers, with the revision's status for
errors. Native bytes are negotiated by the request itself (SPEC 8.1 rules 4-7).
"""

from __future__ import annotations

from ..shared.sdk_compat import require_http_2x_server

require_http_2x_server("the 2026-07-28 HTTP path")  # before the SDK internals below: a clear error on an SDK without them

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from mcp.server._streamable_http_modern import (
    _mcp_param_rejection,
    _SingleExchangeDispatchContext,
    _to_jsonrpc_response,
    handle_modern_request,
)
from mcp.server.connection import Connection
from mcp.server.runner import serve_one
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PROTOCOL_VERSION_HEADER,
    InboundLadderRejection,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import HEADER_MISMATCH, INVALID_REQUEST, JSONRPCError, JSONRPCNotification, JSONRPCRequest
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..wire import ReceiveLimits, WireError
from ..shared import http_media_types as media_types
from ..shared import http_negotiation as negotiation
from ..shared.http_codec import decode_msgpack, encode_json, encode_msgpack, message_dict
from ..shared.frame_stream import control_frame, frame
from ..shared.held_media import HeldMedia, serving
from .reply_encoding import cheaper_as_msgpack
from .replies import error_data, error_response
from .streamable_http import HOLD_INTERVAL, WireAwareSecurity
from .streamable_http_sdk_lines import INVALID_BODY, unsupported_protocol_version_rejection


def is_modern_revision(version: str) -> bool:
    """Whether an `MCP-Protocol-Version` names the per-request era (SPEC 9.5): the first modern revision or a
    later date, unknown ones included (they get the modern path's -32022 with the revisions served). Revisions
    are dates, compared as strings, as the TS server compares them; an older unknown one is the session path's
    400 -32000 (SPEC 9.4)."""
    return version >= negotiation.FIRST_MODERN_REVISION


@dataclass
class _FrameDispatchContext(_SingleExchangeDispatchContext):
    """The SDK's per-exchange context, its request-scoped notifications (progress above all) as frames."""

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        if self.sink is None:
            return
        notification = JSONRPCNotification(jsonrpc="2.0", method=method, params=dict(params) if params else None)
        try:
            await self.sink.send(frame(encode_msgpack(message_dict(notification), native=False)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the client went away: nothing is owed to it


def _decode(body: bytes, limits: ReceiveLimits, supports_native: bool) -> tuple[Any, bool]:
    """The body's value and whether it offers native bytes; bin only in a request that offers it (8.1 rule 7)."""
    try:
        value = decode_msgpack(body, limits, native=False)
    except WireError as exc:
        if exc.code != "forbidden-type" or not supports_native:
            raise
        value = decode_msgpack(body, limits, native=True)
        if not (isinstance(value, dict) and negotiation.request_offers(value)):
            raise WireError("forbidden-type", "8.3", "bin in a request that does not offer native bytes") from exc
        return value, True
    return value, isinstance(value, dict) and negotiation.request_offers(value)


async def handle_modern_msgpack_request(
    app: Any,
    security_settings: TransportSecuritySettings | None,
    json_response: bool,
    lifespan_state: Any,
    scope: Scope,
    receive: Receive,
    send: Send,
    *,
    limits: ReceiveLimits,
    supports_native: bool,
    encoding: str = "cheapest-cpu",
    hold_interval: float = HOLD_INTERVAL,
) -> None:
    request = Request(scope, receive)
    accept = media_types.AcceptChoice(request.headers.get("accept"))
    content_type = request.headers.get("content-type")
    if not accept.prefers_msgpack and not media_types.is_msgpack_body_any_version(content_type):
        await handle_modern_request(app, security_settings, json_response, lifespan_state, scope, receive, send)
        return
    reply_msgpack = accept.prefers_msgpack
    refusal = await WireAwareSecurity(security_settings).validate_request(request, is_post=False)
    if refusal is not None:
        await refusal(scope, receive, send)
        return
    if request.method != "POST":
        await Response(status_code=405, headers={"Allow": "POST"})(scope, receive, send)
        return
    if not reply_msgpack and not accept.json:
        await error_response(HTTPStatus.NOT_ACCEPTABLE, INVALID_REQUEST, "Not Acceptable")(scope, receive, send)
        return
    if not (media_types.is_msgpack_body(content_type) or media_types.is_json_body(content_type)):
        await error_response(
            HTTPStatus.UNSUPPORTED_MEDIA_TYPE, INVALID_REQUEST, "Content-Type must be application/json or msgpack"
        )(scope, receive, send)
        return

    body_is_msgpack = media_types.is_msgpack_body(content_type)
    wire_header = {media_types.WIRE_HEADER: "v1"} if body_is_msgpack else {}

    def as_msgpack(message: dict[str, Any] | JSONRPCError, native: bool, confirms: bool) -> bool:
        """SPEC 9.6 rules 3-4 and the `encoding` option, for one reply (errors have no long strings)."""
        if not reply_msgpack:
            return False
        if not accept.replies_any or encoding == "smallest":
            return True
        if encoding == "json" or not isinstance(message, dict):
            return False
        return confirms or cheaper_as_msgpack(message.get("result"), native=native)

    async def reply(
        message: dict[str, Any] | JSONRPCError, status: int, native: bool = False, confirms: bool = False,
        held: HeldMedia | None = None,
    ) -> None:
        if as_msgpack(message, native, confirms):
            value = message if isinstance(message, dict) else message.model_dump(by_alias=True, exclude_none=True)
            if isinstance(message, JSONRPCError) and message.id is None:
                value["id"] = None
            if confirms and isinstance(value.get("result"), dict):
                negotiation.confirm_in(value["result"])  # SPEC 8.1 rule 6: on msgpack-v1 only
            content, kind = encode_msgpack(value, native=native, held=held), media_types.MSGPACK
            extra_headers = {}
        else:
            content, kind = encode_json(message), media_types.JSON
            extra_headers = wire_header
        await Response(content, status_code=status, headers={**extra_headers, "content-type": kind})(
            scope, receive, send
        )

    async def reject(rejection: InboundLadderRejection, request_id: Any) -> None:
        error = {"code": rejection.code, "message": rejection.message}
        if rejection.data is not None:
            error["data"] = rejection.data
        await reply(
            {"jsonrpc": "2.0", "id": request_id, "error": error}, ERROR_CODE_HTTP_STATUS.get(rejection.code, 400)
        )

    body = await request.body()
    try:
        if body_is_msgpack:
            decoded, offered = _decode(body, limits, supports_native)
        else:
            decoded, offered = pydantic_core.from_json(body), False
    except WireError as exc:
        request_id = exc.request_id if exc.has_id and exc.kind == "request" else None
        await reply(
            {"jsonrpc": "2.0", "id": request_id,
             "error": {"code": exc.jsonrpc_code, "message": str(exc), "data": error_data(exc.code)}},
            HTTPStatus.BAD_REQUEST,
        )
        return
    except ValueError:
        await reply({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}, 400)
        return

    if isinstance(decoded, dict) and "id" not in decoded:
        # A notification: acknowledged and dropped, as the SDK's entry does (no client notifications here).
        unsupported = unsupported_protocol_version_rejection(request.headers.get(MCP_PROTOCOL_VERSION_HEADER, ""))
        if unsupported is not None:
            await reject(unsupported, None)
            return
        await Response(status_code=202)(scope, receive, send)
        return
    try:
        req = JSONRPCRequest.model_validate(decoded)
    except ValidationError:
        await reply(INVALID_BODY, ERROR_CODE_HTTP_STATUS.get(INVALID_BODY.error.code, 400))
        return
    listen = req.method == "subscriptions/listen"
    if listen and not reply_msgpack:
        # A listen reply is a stream: SSE for a client that reads JSON (the SDK's, for a JSON body).
        await error_response(HTTPStatus.NOT_ACCEPTABLE, INVALID_REQUEST, "subscriptions/listen: post it as JSON")(
            scope, receive, send
        )
        return
    duplicated = find_duplicated_routing_header(request.headers.items())
    if duplicated is not None:
        await reject(InboundLadderRejection(code=HEADER_MISMATCH, message=f"{duplicated} appears twice"), req.id)
        return
    verdict = classify_inbound_request(decoded, headers=dict(request.headers))
    if isinstance(verdict, InboundLadderRejection):
        await reject(verdict, req.id)
        return
    if (param_rejection := await _mcp_param_rejection(app, request, req, verdict, lifespan_state)) is not None:
        await reject(param_rejection, req.id)
        return

    connection = Connection.from_envelope(verdict.protocol_version, verdict.client_info, verdict.client_capabilities)
    native = reply_msgpack and offered and supports_native
    # A listen reply IS a notification stream (9.5), so it takes the frame path even with json_response.
    streams = reply_msgpack and (not json_response or listen)
    context_class = _FrameDispatchContext if streams else _SingleExchangeDispatchContext
    dispatch = context_class(
        transport=TransportContext(kind="streamable-http", can_send_request=False, headers=request.headers),
        request_id=req.id,
        message_metadata=ServerMessageMetadata(request_context=request),
        progress_token=progress_token_from_params(req.params),
    )

    def final(outcome: Any) -> tuple[dict[str, Any], int]:
        value = outcome.model_dump(by_alias=True, exclude_none=True)
        status = ERROR_CODE_HTTP_STATUS.get(outcome.error.code, 200) if isinstance(outcome, JSONRPCError) else 200
        return value, status

    confirms = native and req.method == "server/discover"
    # `native_image` holds its bytes for a reply that goes as MessagePack with bin (every such reply does, but
    # under the `json` encoding): released when this request's handling ends, however it ends.
    held = HeldMedia() if native and encoding != "json" else None
    hold = held.open(req.id) if held is not None else None

    async def served() -> Any:
        with serving(hold):
            return await serve_one(app, dispatch, req.method, req.params, connection=connection, lifespan_state=lifespan_state)

    try:
        if context_class is _SingleExchangeDispatchContext:
            value, status = final(await _to_jsonrpc_response(req.id, served()))
            await reply(value, status, native=native, confirms=confirms, held=held)
            return
        await _reply_frames_or_body(
            dispatch, req.id, served, final, partial(reply, held=held), native, confirms, hold_interval, scope, receive,
            send, held,
        )
    finally:
        if held is not None:
            held.release(req.id)


async def _reply_frames_or_body(
    dispatch: Any, request_id: Any, served: Any, final: Any, reply: Any, native: bool, confirms: bool, hold_interval: float,
    scope: Scope, receive: Receive, send: Send, held: HeldMedia | None,
) -> None:
    """The reply is held until its first message (SPEC 9.5): the answer alone goes as one body with the
    revision's status; a notification first (or a silent handler past the keep-alive interval) opens a frame
    stream, which then carries the notifications and ends with the answer."""
    sink, events = anyio.create_memory_object_stream[bytes](0)
    dispatch.sink = sink
    outcome: list[Any] = []

    async def run_handler() -> None:
        async with sink:
            outcome.append(await _to_jsonrpc_response(request_id, served()))

    async def watch_disconnect(scope_to_cancel: anyio.CancelScope) -> None:
        while (await receive()).get("type") != "http.disconnect":
            pass
        scope_to_cancel.cancel()

    async with events, anyio.create_task_group() as tasks:
        tasks.start_soon(run_handler)
        tasks.start_soon(watch_disconnect, tasks.cancel_scope)
        first: bytes | None = None
        done = False
        with anyio.move_on_after(hold_interval):
            try:
                first = await events.receive()
            except anyio.EndOfStream:
                done = True
        if done:
            value, status = final(outcome[0])
            await reply(value, status, native=native, confirms=confirms)
        else:
            headers = [(b"content-type", media_types.FRAME_STREAM.encode()), (b"cache-control", b"no-cache, no-transform")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            chunk = first if first is not None else control_frame({})
            while True:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                chunk = control_frame({})
                with anyio.move_on_after(hold_interval):
                    try:
                        chunk = await events.receive()
                    except anyio.EndOfStream:
                        break
            value, _ = final(outcome[0])
            if confirms and isinstance(value.get("result"), dict):
                negotiation.confirm_in(value["result"])
            await send({"type": "http.response.body", "body": frame(encode_msgpack(value, native=native, held=held)), "more_body": False})
        tasks.cancel_scope.cancel()
