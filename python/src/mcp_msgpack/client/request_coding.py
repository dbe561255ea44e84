"""The client's side of content codings (SPEC 10; the TS side's client-coding.ts).

Replies: httpx2, the SDK's HTTP client, offers and decodes by itself every coding it has a module for (gzip,
deflate; br with `brotli`; zstd with `compression.zstd` or `backports.zstd`), the same modules shared/codings.py
codes with, so nothing is decoded twice here. What this adds: a MessagePack reply is read through
`read_capped`, which counts decoded bytes against the frame cap as they come out of httpx2's decoder (a small
coded body never makes the client hold more than the cap), and a reply in a coding httpx2 did not offer is
refused, not read as the wire.

The MCP dictionary coding (SPEC 10.5, `mcp-dict-v1`) is offered beside httpx2's codings on MessagePack POSTs and
decoded here, as httpx2 passes a coding it does not know through undecoded: a one-body reply in it is inflated
within the frame cap before anything reads it (`dictionary_decoded`); on a stream it stays a coding not offered.

Requests: a body of REQUEST_MIN_BYTES or more goes coded once the server has said which codings it takes (its
`Accept-Encoding` response header, RFC 7694), in the best of them this Python codes; a 415 to a coded body
turns request coding off for good and the body goes again uncoded (SPEC 10.3 rules 1 and 3)."""

from __future__ import annotations

import httpx2

from ..shared import codings as coding_lib
from ..shared.accept_encoding import accepted_codings, content_encodings, negotiate_coding
from ..shared import http_media_types as media_types
from ..shared.codings import ContentCoding
from ..shared.mcp_dictionary import MCP_DICTIONARY_CODING


def httpx_decodes() -> frozenset[str]:
    """The codings httpx2 decodes (and so offers in its default Accept-Encoding) in this Python."""
    from httpx2._decoders import SUPPORTED_DECODERS  # the list its own Accept-Encoding is made from

    return frozenset(coding for coding in SUPPORTED_DECODERS if coding != "identity")


class UnofferedCoding(Exception):
    """A reply in a content coding the client did not offer (SPEC 10.4)."""


class ReplyTooLarge(Exception):
    """A reply whose decoded bytes pass the client's cap (SPEC 10.4)."""


def check_reply_coding(response: httpx2.Response) -> None:
    """UnofferedCoding for a reply in a coding httpx2 did not decode: it would reach the wire reader coded."""
    unoffered = [coding for coding in content_encodings(response.headers.get("content-encoding")) if coding not in httpx_decodes()]
    if unoffered:
        raise UnofferedCoding(f"a reply in {', '.join(unoffered)}, which the client did not offer")


async def read_capped(response: httpx2.Response, max_bytes: int) -> bytes:
    """The reply's decoded body, refused (ReplyTooLarge) as soon as it passes `max_bytes`."""
    check_reply_coding(response)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            await response.aclose()
            raise ReplyTooLarge(f"a reply over {max_bytes} bytes once decoded")
        chunks.append(chunk)
    return b"".join(chunks)


def offered_codings(client_accept_encoding: str | None) -> str:
    """The Accept-Encoding of a MessagePack POST: the dictionary coding first, then what the HTTP client asks."""
    asked = client_accept_encoding if client_accept_encoding is not None else ", ".join(sorted(httpx_decodes()))
    return f"{MCP_DICTIONARY_CODING}, {asked}" if asked else MCP_DICTIONARY_CODING


async def dictionary_decoded(response: httpx2.Response, max_bytes: int) -> httpx2.Response:
    """The reply as it came, or, when it is a one-body reply in `mcp-dict-v1`, the same reply decoded (its coded
    bytes inflated within `max_bytes`: ReplyTooLarge past it, httpx2.DecodingError when they do not decode)."""
    if content_encodings(response.headers.get("content-encoding")) != [MCP_DICTIONARY_CODING]:
        return response
    if media_types.media_type(response.headers.get("content-type"))[0] in (media_types.SSE, media_types.FRAME_STREAM):
        return response  # never on a stream (10.5 rule 2): check_reply_coding refuses it as not offered
    decoder = coding_lib.stream_decoder(MCP_DICTIONARY_CODING, max_bytes)
    parts: list[bytes] = []
    try:
        async for chunk in response.aiter_raw():
            parts.append(decoder.feed(chunk))
        if not decoder.finished():
            raise coding_lib.CodingError(f"the {MCP_DICTIONARY_CODING} bytes end before the coding does (truncated)")
    except coding_lib.DecodedTooLarge:
        await response.aclose()
        raise ReplyTooLarge(f"a reply over {max_bytes} bytes once decoded ({MCP_DICTIONARY_CODING})") from None
    except coding_lib.CodingError as exc:
        raise httpx2.DecodingError(f"a reply in {MCP_DICTIONARY_CODING} did not decode: {exc}") from exc
    headers = [(n, v) for n, v in response.headers.raw if n.lower() not in (b"content-encoding", b"content-length")]
    return httpx2.Response(response.status_code, headers=headers, content=b"".join(parts), request=response.request)


class RequestCoding:
    """Which coding large request bodies go in: none until the server's Accept-Encoding names one."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.coding: ContentCoding | None = None
        self.refused = False

    def learn(self, response: httpx2.Response) -> None:
        """The codings the server takes, from a response's Accept-Encoding (RFC 7694)."""
        header = response.headers.get("accept-encoding")
        if not self.enabled or self.refused or header is None:
            return
        self.coding = negotiate_coding(header, coding_lib.CODINGS) if accepted_codings(header) else None

    def code(self, body: bytes) -> tuple[bytes, ContentCoding] | None:
        """The body coded for the server, or None to send it as it is (small, or no coding learned)."""
        if self.coding is None or len(body) < coding_lib.REQUEST_MIN_BYTES:
            return None
        return coding_lib.encode(self.coding, body), self.coding

    def refused_coded(self, response: httpx2.Response, coded: bool) -> bool:
        """A 415 to a coded body: the server (or a proxy) does not take it after all; True: send it again uncoded."""
        if not coded or response.status_code != 415:
            return False
        self.coding = None
        self.refused = True
        return True
