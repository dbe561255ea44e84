"""How the server's own replies leave: errors on the wire the request prefers (SPEC 9.2), `Vary`, the body limit."""

from __future__ import annotations

from contextvars import ContextVar
from http import HTTPStatus
from typing import Any

from mcp.types import INVALID_REQUEST, JSONRPCError
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..wire import encode_payload
from ..shared import http_media_types as media_types
from ..shared.http_codec import encode_json

SESSION_NOT_FOUND = -32001
"""The error code of a request for a session the server does not have (404, SPEC 9.4; the TS server's)."""

prefers_msgpack: ContextVar[bool] = ContextVar("mcp_msgpack_prefers_msgpack", default=False)
"""Whether the request being served prefers MessagePack replies; its errors are then MessagePack (SPEC 9.2)."""


def accept_of(scope: Scope) -> media_types.AcceptChoice:
    return media_types.AcceptChoice(Headers(scope=scope).get("accept"))


def error_body(code: int, message: str, *, request_id: Any = None, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def encoded_reply(message: dict[str, Any] | JSONRPCError, msgpack: bool) -> tuple[bytes, str]:
    if msgpack:
        value = message if isinstance(message, dict) else message.model_dump(by_alias=True, exclude_unset=True)
        return encode_payload(value), media_types.MSGPACK
    return encode_json(message), media_types.JSON


def error_response(
    status: int,
    code: int,
    message: str,
    *,
    msgpack: bool | None = None,
    request_id: Any = None,
    data: Any = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """A transport error as a JSON-RPC error (SPEC 9.2, "Errors"), in MessagePack when the request prefers it."""
    use_msgpack = prefers_msgpack.get() if msgpack is None else msgpack
    body, content_type = encoded_reply(error_body(code, message, request_id=request_id, data=data), use_msgpack)
    return Response(body, status_code=status, headers={**(headers or {}), "content-type": content_type})


def with_vary(send: Send) -> Send:
    """`Vary: Accept, Content-Type, Accept-Encoding` on every response (SPEC 9.2, 10.2), so no cache hands one encoding to another."""

    async def send_with_vary(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            headers.append((b"vary", media_types.VARY.encode()))
            message = {**message, "headers": headers}
        await send(message)

    return send_with_vary


class RequestBodyLimit:
    """413 for a body over `max_body_size` (SPEC 9.4), from `Content-Length` before any byte is read, or while
    reading; the error on the request's preferred wire, with `Connection: close`. The body read is handed on."""

    def __init__(self, app: ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            INVALID_REQUEST,
            f"Request body over {self.max_body_size} bytes",
            msgpack=accept_of(scope).prefers_msgpack,
            headers={"connection": "close"},
        )
        await response(scope, receive, with_vary(send))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_size:
            await self._too_large(scope, receive, send)
            return
        # The body is gathered in one buffer, each chunk dropped as it is copied, and handed on once: the
        # app's bytes are then its only copy while the body is decoded (a list of chunks and their join would
        # hold two, 1x the body more at the process's peak; python/bench/measure_rss.py).
        buffer = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # disconnected: the app sees it as usual
                return
            buffer += message.get("body", b"")
            more_body = message.get("more_body", False)
            del message
            if len(buffer) > self.max_body_size:
                await self._too_large(scope, receive, send)
                return
            if not more_body:
                break
        whole = replaying(buffer, receive)
        del buffer  # the replay holds the only reference until it hands the body on
        await self.app(scope, whole, send)


def replaying(body: bytes | bytearray, receive: Receive) -> Receive:
    """A `receive` that hands on `body` whole, read already, then what `receive` brings (a disconnect). It
    lets go of the body once handed on, so the app's copy is the only one while it is decoded."""
    pending: bytes | bytearray | None = body
    del body

    async def replay() -> Message:
        nonlocal pending
        if pending is not None:
            handed, pending = pending, None
            return {"type": "http.request", "body": handed, "more_body": False}
        return await receive()

    return replay


def error_data(code: str | None) -> dict[str, Any] | None:
    return {"reason": code} if code else None

