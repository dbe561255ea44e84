"""Held media: the bytes of `native_image`/`native_audio` blocks kept beside the SDK's models until their reply is
written, so a native-bytes reply carries them as bin with no base64 made or read on the way (issue 39).

A transport of this package opens a `RequestHold` for a request that arrived with native bytes in force for its
reply, and makes it current (a context variable) while it hands the request to the SDK: the SDK runs the handler
in that context (2.x carries the sender's context variables to the handler). `native_image` there puts a token
in the block's `data` and the bytes here; the transport swaps the token for the bytes as it encodes the reply
(`take`), and drops whatever the request held when its reply is written, dropped or cancelled, or its client goes
away (`release`). Everywhere else (the JSON wire, a stock client, the SDK's own transports, an event store, a
request whose reply may go as JSON) no hold is current and `native_image` makes the standard base64 itself.

A token is this process's random prefix and a counter: no client can forge one, no application string is one by
chance, and one that is not held any more (its reply dropped) fails the reply loudly (`HeldMediaGone`) instead of
reaching a client as data.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeGuard

TOKEN_PREFIX = f"mcp-msgpack-held-{secrets.token_hex(12)}-"

_live = [0]  # media held in this process, every connection together (`held_count`)


def held_count() -> int:
    """How many media are held in this process now: 0 whenever no reply with held media is in flight."""
    return _live[0]


class HeldMediaGone(RuntimeError):
    """A held media token whose bytes are no longer held (its request's reply was dropped or already written)."""


class HeldMedia:
    """The held bytes of one connection (stdio) or one transport (HTTP), by token, and the tokens by request."""

    __slots__ = ("_bytes", "_by_request", "_next")

    def __init__(self) -> None:
        self._bytes: dict[str, bytes] = {}
        self._by_request: dict[Hashable, list[str]] = {}
        self._next = itertools.count()

    def open(self, key: Hashable) -> RequestHold:
        """A hold for the request `key` (its id on stdio, its stream id on HTTP), current while it is open."""
        self._by_request.setdefault(key, [])
        return RequestHold(self, key)

    def hold(self, key: Hashable, data: bytes) -> str:
        tokens = self._by_request.get(key)
        if tokens is None:
            raise HeldMediaGone("the request's reply is gone (answered, dropped or cancelled): nothing can be held for it")
        token = f"{TOKEN_PREFIX}{next(self._next)}"
        self._bytes[token] = data
        _live[0] += 1
        tokens.append(token)
        return token

    def take(self, token: str) -> bytes:
        """The bytes held under `token` (held until their request is released: a reply may be encoded twice)."""
        data = self._bytes.get(token)
        if data is None:
            raise HeldMediaGone("held media of a reply that was dropped or already written")
        return data

    def release(self, key: Hashable) -> None:
        """Drops what the request `key` held: its reply was written, dropped or cancelled, or its client left."""
        for token in self._by_request.pop(key, ()):
            if self._bytes.pop(token, None) is not None:
                _live[0] -= 1

    def __del__(self) -> None:  # a connection that ended with replies unwritten
        _live[0] -= len(self._bytes)

    def __len__(self) -> int:
        return len(self._bytes)

    def __contains__(self, key: object) -> bool:
        return key in self._by_request


class RequestHold:
    """One request's hold, as `native_image` sees it."""

    __slots__ = ("media", "key")

    def __init__(self, media: HeldMedia, key: Hashable) -> None:
        self.media = media
        self.key = key

    def hold(self, data: bytes) -> str:
        return self.media.hold(self.key, data)


_current: ContextVar[RequestHold | None] = ContextVar("mcp_msgpack_held_media", default=None)


def current_hold() -> RequestHold | None:
    """The hold of the request being handled, when its reply carries bin; None everywhere else."""
    return _current.get()


@contextmanager
def serving(hold: RequestHold | None) -> Iterator[None]:
    """Makes `hold` current (None: no hold) while the transport hands its request to the SDK."""
    token = _current.set(hold)
    try:
        yield
    finally:
        _current.reset(token)


def is_token(value: object) -> TypeGuard[str]:
    return type(value) is str and value.startswith(TOKEN_PREFIX)
