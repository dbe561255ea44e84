"""Content codings on the server (SPEC 10; the TS side's coded-reply.ts and request-body.ts).

Request bodies (10.3): a POST body in a coding this server takes is decoded before anything reads it, within the
request body cap, checked while inflating (413 past it, with no more than the cap allocated; 400 -32700 for a
coding that does not decode). A body in any other coding, or in more than one, is refused 415 with the codings
taken in `Accept-Encoding` (`identity` alone when it takes none, RFC 7694), before any byte is read as the wire.

Replies (10.2): for a client whose `Accept-Encoding` allows one, a one-body reply of `min_bytes` (256) or more is
coded whole (left as it is when mostly native bytes, or when coding saved less than an eighth); one of 96 bytes to 4
KiB goes in the MCP dictionary coding (10.5, `mcp-dict-v1`) instead when the client names it. An SSE or frame
stream goes through one compression context for its life, flushed at each event (never in the dictionary coding).
Replies to requests without `Mcp-Session-Id` (the one that opens a session, a stateless server's) name the codings
taken in request bodies (`Accept-Encoding`, 10.2 rule 5), so this package's client codes its large requests; within
a session no reply repeats it (it would cost every reply the header), and a 415 keeps its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Literal

from mcp.types import INVALID_REQUEST, PARSE_ERROR
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from ..shared import codings as coding_lib
from ..shared import http_media_types as media_types
from ..shared.accept_encoding import accepted_codings, content_encodings, negotiate_coding
from ..shared.codings import ContentCoding, DecodedCoding
from ..shared.mcp_dictionary import MCP_DICTIONARY_CODING, encode_with_dictionary, in_dictionary_range
from .host_check import is_loopback_address
from .native_bytes_body import mostly_native_bytes
from .replies import error_response, replaying

TRANSPORT_ERROR = -32000

DEFAULT_MAX_CODED_STREAMS = 64
"""Most event streams coded at once; a stream opened past it goes uncoded (each holds a compression context,
some hundreds of KiB, for its whole life: a thousand long-lived GET streams would otherwise hold too much)."""

_STREAM_TYPES = (media_types.SSE, media_types.FRAME_STREAM)


@dataclass
class CompressionPolicy:
    """`streamable_http_app(compression=...)` resolved: when replies are coded, in what, and what requests may be in.

    `replies`: 'auto' (default) codes for clients that ask unless the request arrived on a loopback address
    (where bytes cost nothing and CPU is what counts); True for every client that asks; False never.
    `requests`: take request bodies in the codings this Python decodes (default True); False answers a coded
    body 415 with `Accept-Encoding: identity`.
    `dictionary`: code one-body replies of 96 bytes to 4 KiB in `mcp-dict-v1` for clients that name it (default
    True; SPEC 10.5).
    `favor`: 'bytes' (default) codes one-body replies of 8-64 KiB in br (Brotli 5) where the client takes it, about
    7% fewer bytes than zstd 3 there for several times its coder CPU (at cloud prices 1 ms of CPU is worth about
    120 bytes of egress: the bytes pay); 'cpu' keeps the codings' order (zstd 3 there). Without the `brotli`
    module br is not among the codings and both settings code as 'cpu'. Smaller and larger replies and streams
    are the same either way."""

    replies: Literal["auto"] | bool = "auto"
    min_bytes: int = coding_lib.REPLY_MIN_BYTES
    codings: tuple[ContentCoding, ...] = coding_lib.CODINGS
    requests: bool = True
    dictionary: bool = True
    max_coded_streams: int = DEFAULT_MAX_CODED_STREAMS
    favor: coding_lib.Favor = "bytes"
    coded_streams: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.replies not in ("auto", True, False):
            raise ValueError("compression replies must be 'auto', True or False")
        if self.min_bytes < 0 or self.max_coded_streams < 0:
            raise ValueError("compression min_bytes and max_coded_streams must not be negative")
        if self.favor not in coding_lib.FAVORS:
            raise ValueError(f"compression favor must be 'bytes' or 'cpu', got {self.favor!r}")
        self.codings = tuple(coding for coding in self.codings if coding in coding_lib.CODINGS)

    @property
    def request_codings(self) -> tuple[ContentCoding, ...]:
        return coding_lib.CODINGS if self.requests else ()


CompressionOption = Literal["auto"] | bool | CompressionPolicy


def compression_policy(option: CompressionOption) -> CompressionPolicy:
    """The app's `compression` option: 'auto' (default), True/False for replies (False also refuses coded
    requests, as the TS server's `compression: false`), or a CompressionPolicy."""
    if isinstance(option, CompressionPolicy):
        return option
    return CompressionPolicy(replies=option, requests=option is not False)


# --- request bodies ---------------------------------------------------------------------------------------


def _refusal(scope: Scope, policy: CompressionPolicy, codings: list[str]) -> Response | None:
    if len(codings) == 1 and coding_lib.known_coding(codings[0]) in policy.request_codings:
        return None  # a body carries at most one coding (SPEC 10.1): more than one is refused
    taken = ", ".join(policy.request_codings)
    return error_response(
        HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
        TRANSPORT_ERROR,
        f"Unsupported Media Type: Content-Encoding {', '.join(codings)} is not supported; send the body "
        f"{f'in {taken} or ' if taken else ''}uncompressed",
        headers={"accept-encoding": taken or "identity"},
    )


async def decoded_request(
    scope: Scope, receive: Receive, policy: CompressionPolicy, max_body_size: int
) -> tuple[Scope, Receive] | Response:
    """The request with its coded body decoded (the scope without Content-Encoding and Content-Length), or the
    refusal: 415 for a coding not taken, 413 past `max_body_size` once decoded, 400 for bytes that do not decode."""
    if scope.get("method") != "POST":
        return scope, receive
    codings = content_encodings(Headers(scope=scope).get("content-encoding"))
    if not codings:
        return scope, receive
    refusal = _refusal(scope, policy, codings)
    if refusal is not None:
        return refusal
    coding = coding_lib.known_coding(codings[0])
    assert coding is not None
    chunks: list[bytes] = []
    while True:  # RequestBodyLimit has read the coded body within the cap: this is its replay
        message = await receive()
        if message["type"] != "http.request":
            return scope, receive
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    try:
        body = coding_lib.decode(coding, b"".join(chunks), max_body_size)
    except coding_lib.DecodedTooLarge:
        return error_response(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE, INVALID_REQUEST,
            f"Request body over {max_body_size} bytes once decoded (Content-Encoding {coding})",
            headers={"connection": "close"},
        )
    except coding_lib.CodingError as exc:
        return error_response(HTTPStatus.BAD_REQUEST, PARSE_ERROR, f"Parse error: {exc}")
    skipped = (b"content-encoding", b"content-length")
    headers = [(name, value) for name, value in scope["headers"] if name.lower() not in skipped]
    headers.append((b"content-length", str(len(body)).encode()))
    return {**scope, "headers": headers}, replaying(body, receive)


# --- replies ----------------------------------------------------------------------------------------------


def _shrank_enough(coded: int, plain: int) -> bool:
    """Whether coding saved enough to be worth the client's decoding: at least an eighth of the bytes."""
    return coded <= plain - plain / 8


def coded_send(scope: Scope, send: Send, policy: CompressionPolicy) -> Send:
    """`send` coding this request's replies as its Accept-Encoding and the policy allow (SPEC 10.2)."""
    accept = Headers(scope=scope).get("accept-encoding")
    server = scope.get("server")
    off = policy.replies is False or accept is None
    if off or (policy.replies == "auto" and is_loopback_address(server[0] if server else None)):
        return send
    outside_session = Headers(scope=scope).get("mcp-session-id") is None
    return _CodedReply(send, accept, policy, policy.request_codings if outside_session else ()).send


class _CodedReply:
    """One reply's ASGI messages, coded on their way out: a one-body reply held until whole, then coded; a stream
    coded message by message (each `http.response.body` of an event stream is one event, flushed)."""

    def __init__(self, send: Send, accept: str | None, policy: CompressionPolicy, advertise: tuple[ContentCoding, ...]) -> None:
        self._send = send
        self._accept = accept
        self._policy = policy
        self._advertise = advertise
        """The codings to name in `Accept-Encoding`: those taken in request bodies, outside a session only."""
        self._dictionary = policy.dictionary and accepted_codings(accept).get(MCP_DICTIONARY_CODING, 0.0) > 0
        self._start: Message | None = None
        self._held: list[bytes] = []
        self._stream: coding_lib.StreamEncoder | None = None
        self._passing = False

    def _headers(self, coding: str | None, length: int | None) -> list[tuple[bytes, bytes]]:
        assert self._start is not None
        replaced = {b"content-encoding"} | ({b"content-length"} if coding else set())
        headers = [(n, v) for n, v in self._start.get("headers", []) if n.lower() not in replaced]
        if coding is not None:
            headers.append((b"content-encoding", coding.encode()))
            if length is not None:
                headers.append((b"content-length", str(length).encode()))
        # A 415's own Accept-Encoding (10.3 rule 3) stays; other replies name the codings outside a session only.
        if self._advertise and not any(n.lower() == b"accept-encoding" for n, _ in headers):
            headers.append((b"accept-encoding", ", ".join(self._advertise).encode()))
        return headers

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self._start = message
            headers = Headers(raw=message.get("headers", []))
            content_type = media_types.media_type(headers.get("content-type"))[0]
            if headers.get("content-encoding") is not None:
                self._passing = True
                await self._send(message)
            elif content_type in _STREAM_TYPES:
                await self._open_stream(message)
            return  # a one-body reply starts once its body is whole
        if kind != "http.response.body" or self._passing:
            await self._send(message)
            return
        body: bytes = message.get("body", b"")
        more = message.get("more_body", False)
        if self._stream is not None:
            coded = self._stream.event(body) if body else b""
            if not more:
                coded += self._stream.end()
                self._stream = None
                self._policy.coded_streams -= 1
            await self._send({"type": "http.response.body", "body": coded, "more_body": more})
            return
        self._held.append(body)
        if not more:
            await self._send_whole(b"".join(self._held))

    async def _open_stream(self, start: Message) -> None:
        coding = negotiate_coding(self._accept, self._policy.codings)
        if coding is None or self._policy.coded_streams >= self._policy.max_coded_streams:
            self._passing = True
            await self._send({**start, "headers": self._headers(None, None)})
            return
        self._policy.coded_streams += 1
        self._stream = coding_lib.StreamEncoder(coding)
        await self._send({**start, "headers": self._headers(coding, None)})

    def _whole_coding(self, size: int) -> DecodedCoding | None:
        """A one-body reply's coding: the dictionary's in its range where the client takes it (SPEC 10.5 rule 2),
        else the best standard one the client takes from `min_bytes` (br first for 8-64 KiB under favor='bytes', the
        client's q-values still deciding); None for none."""
        if self._dictionary and in_dictionary_range(size):
            return MCP_DICTIONARY_CODING
        if size < self._policy.min_bytes:
            return None
        return negotiate_coding(self._accept, coding_lib.favored_order(self._policy.codings, self._policy.favor, size))

    async def _send_whole(self, body: bytes) -> None:
        assert self._start is not None
        coding = self._whole_coding(len(body))
        content_type = Headers(raw=self._start.get("headers", [])).get("content-type")
        if coding is not None:
            msgpack = media_types.is_msgpack_body(content_type)
            if not (msgpack and mostly_native_bytes(body)):
                if coding == MCP_DICTIONARY_CODING:
                    coded = encode_with_dictionary(body)
                else:
                    coded = coding_lib.encode(coding, body)
                if _shrank_enough(len(coded), len(body)):
                    await self._send({**self._start, "headers": self._headers(coding, len(coded))})
                    await self._send({"type": "http.response.body", "body": coded, "more_body": False})
                    return
        await self._send({**self._start, "headers": self._headers(None, None)})
        await self._send({"type": "http.response.body", "body": body, "more_body": False})

    def close(self) -> None:
        """The request is over: a stream cut before its last message (the client gone) gives its slot back."""
        if self._stream is not None:
            self._stream = None
            self._policy.coded_streams -= 1


def end_coded_send(send: Send) -> None:
    """Called once the request is served (whatever way), with what coded_send returned."""
    owner = getattr(send, "__self__", None)
    if isinstance(owner, _CodedReply):
        owner.close()
