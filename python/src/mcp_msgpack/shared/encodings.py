"""The `encoding` option of the transports: which messages go as MessagePack when either wire would do (a
mixed stdio stream, SPEC 7.4; a one-body HTTP reply, 9.6). What each means is `server/reply_encoding.py`'s
and `WireState`'s."""

from __future__ import annotations

ENCODINGS = ("cheapest-cpu", "smallest", "json")


def check_encoding(encoding: str) -> str:
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}")
    return encoding
