"""MCP 2026-07-28 over msgpack-v1 (SPEC 9.5): one stateless request per POST, its headers checked against the body.

JSON requests that prefer JSON replies go to the SDK's own handler. The others are decoded by `Content-Type`
and checked with the SDK's own ladder (`classify_inbound_request`, the `Mcp-Param-*` check), on the decoded
body, as SPEC 9.5 asks; the reply is one body on the wire `Accept` prefers, with the revision's status for
errors. Native bytes are negotiated by the request itself (SPEC 8.1 rules 4-7).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import pydantic_core
from mcp.server._streamable_http_modern import (
    _INVALID_BODY,
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
    unsupported_protocol_version_rejection,
)
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import HEADER_MISMATCH, INVALID_REQUEST, JSONRPCError, JSONRPCRequest
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..wire import ReceiveLimits, WireError
from . import media_types, negotiation
from .codec import decode_msgpack, encode_json, encode_msgpack
from .server_replies import error_data, error_response
from .server_transport import WireAwareSecurity


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
    extra_headers = {} if reply_msgpack or not body_is_msgpack else {media_types.WIRE_HEADER: "v1"}

    async def reply(message: dict[str, Any] | JSONRPCError, status: int, native: bool = False) -> None:
        if reply_msgpack:
            value = message if isinstance(message, dict) else message.model_dump(by_alias=True, exclude_none=True)
            if isinstance(message, JSONRPCError) and message.id is None:
                value["id"] = None
            content, kind = encode_msgpack(value, native=native), media_types.MSGPACK
        else:
            content, kind = encode_json(message), media_types.JSON
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
        await reply(_INVALID_BODY, ERROR_CODE_HTTP_STATUS.get(_INVALID_BODY.error.code, 400))
        return
    if req.method == "subscriptions/listen" and reply_msgpack:
        # A listen stream on the frame stream is not served by this version: the client may listen over SSE.
        await error_response(HTTPStatus.NOT_ACCEPTABLE, INVALID_REQUEST, "subscriptions/listen: use SSE")(
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
    dispatch = _SingleExchangeDispatchContext(
        transport=TransportContext(kind="streamable-http", can_send_request=False, headers=request.headers),
        request_id=req.id,
        message_metadata=ServerMessageMetadata(request_context=request),
        progress_token=progress_token_from_params(req.params),
    )
    outcome = await _to_jsonrpc_response(
        req.id, serve_one(app, dispatch, req.method, req.params, connection=connection, lifespan_state=lifespan_state)
    )
    native = reply_msgpack and offered and supports_native
    value = outcome.model_dump(by_alias=True, exclude_none=True)
    if native and req.method == "server/discover" and isinstance(value.get("result"), dict):
        negotiation.confirm_in(value["result"])  # SPEC 8.1 rule 6
    status = ERROR_CODE_HTTP_STATUS.get(outcome.error.code, 200) if isinstance(outcome, JSONRPCError) else 200
    await reply(value, status, native=native)
