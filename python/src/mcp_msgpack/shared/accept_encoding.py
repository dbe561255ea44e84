"""Accept-Encoding and Content-Encoding as RFC 9110 (12.5.3, 8.4) has them: codings with optional q-values,
case-insensitive; `*` stands for any coding not named; q=0 refuses (the TS side's accept-encoding.ts)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .codings import ContentCoding

_Q = re.compile(r"^\s*q\s*=\s*([0-9.]+)\s*$", re.IGNORECASE)


def accepted_codings(header: str | None) -> dict[str, float]:
    """The q-value of each coding an Accept-Encoding names (lower case; `*` too); empty for none or no header."""
    accepted: dict[str, float] = {}
    if not header:
        return accepted
    for item in header.split(","):
        name, *params = item.split(";")
        coding = name.strip().lower()
        if not coding:
            continue
        q = 1.0
        for param in params:
            match = _Q.match(param)
            if match:
                try:
                    q = float(match.group(1))
                except ValueError:
                    q = 0.0
        accepted[coding] = max(accepted.get(coding, 0.0), min(q, 1.0))
    return accepted


def negotiate_coding(header: str | None, available: Iterable[ContentCoding]) -> ContentCoding | None:
    """Of `available` (best first), the coding the client gives the highest q-value, the given order breaking
    ties; None when it names none of them, or sends no Accept-Encoding (a client that does not ask gets none)."""
    accepted = accepted_codings(header)
    if not accepted:
        return None
    any_q = accepted.get("*")
    best: ContentCoding | None = None
    best_q = 0.0
    for coding in available:
        q = accepted.get(coding, any_q if any_q is not None else 0.0)
        if q > best_q:
            best, best_q = coding, q
    return best


def content_encodings(header: str | None) -> list[str]:
    """The codings a Content-Encoding lists, in the order applied, `identity` left out (lower case)."""
    if not header:
        return []
    codings = (coding.strip().lower() for coding in header.split(","))
    return [coding for coding in codings if coding and coding != "identity"]
