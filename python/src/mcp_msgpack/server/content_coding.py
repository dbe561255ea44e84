"""Content codings of request bodies (SPEC 10.3): this server takes none, so a POST whose `Content-Encoding`
names one is refused 415 with `Accept-Encoding: identity` (RFC 9110 section 15.5.16, RFC 7694), before any byte
of it is read as the wire: a compressed body is never parsed as MessagePack or JSON, and a plain body labelled
compressed is not served as if the label were not there. `identity` is no coding."""

from __future__ import annotations

from http import HTTPStatus

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import Scope

from .replies import error_response

TRANSPORT_ERROR = -32000

TAKEN_CODINGS: tuple[str, ...] = ()
"""The codings this server decodes: none yet (the TS server's zstd, br and gzip are issue 41's, TypeScript only)."""


def content_codings(header: str | None) -> list[str]:
    """The codings a `Content-Encoding` names, in lower case, `identity` left out."""
    if not header:
        return []
    codings = (coding.strip().lower() for coding in header.split(","))
    return [coding for coding in codings if coding and coding != "identity"]


def unsupported_content_coding(scope: Scope) -> Response | None:
    """The 415 for a POST body in a coding this server does not take (every coding, today); None otherwise."""
    if scope.get("method") != "POST":
        return None
    codings = content_codings(Headers(scope=scope).get("content-encoding"))
    if not codings or (len(codings) == 1 and codings[0] in TAKEN_CODINGS):
        return None  # a body carries at most one coding (SPEC 10.1): more than one is refused
    taken = ", ".join(TAKEN_CODINGS)
    return error_response(
        HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
        TRANSPORT_ERROR,
        f"Unsupported Media Type: Content-Encoding {', '.join(codings)} is not supported; send the body "
        f"{f'in {taken} or ' if taken else ''}uncompressed",
        headers={"accept-encoding": taken or "identity"},
    )
