"""Native bytes at the edge (SPEC 8): base64 media fields to bin on send, bin to the base64 the SDK's models
hold (or to placeholders for `call_tool_native`, on a client) on receipt."""

from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any

from ..wire.bin_places import outside_media
from ..wire.media_slots import media_slots
from .held_media import HeldMedia, HeldMediaGone, is_token
from .placeholders import ASIDE

try:  # SIMD base64 (optional, `pip install mcp-msgpack[fast]`): a 5 MiB image's base64 -> bytes in ~1-15 ms
    # where binascii takes 30-80 ms, the larger part of a native-bytes reply's server CPU (README, Costs).
    from pybase64 import b64decode, b64encode
except ImportError:  # pragma: no cover - the stdlib's, same results
    from base64 import b64decode, b64encode  # type: ignore[assignment]  # pybase64's are the stdlib's, fewer options


def bytes_to_base64(data: bytes) -> str:
    """Standard base64 of `data`, as the SDK's models hold media (`native_image`, and bin received)."""
    return b64encode(data).decode("ascii")


def base64_to_bin(message: dict[str, Any], held: HeldMedia | None = None) -> int:
    """On send, in force: every media field becomes bin (in place): a held media token (`native_image`) its
    bytes as they are, from `held` (the sending connection's; a token not held there fails the message,
    `HeldMediaGone`), and base64 an application wrote decoded. Returns how many. A field that is not valid
    standard base64 is left as it is (the peer gets what the application wrote). The client's
    call_tool_native store is never looked up here: no message can carry bytes held for another."""
    count = 0
    for holder, key in list(media_slots(message)):
        value = holder.get(key)
        if is_token(value):
            if held is None:
                raise HeldMediaGone("held media on a connection that holds none")
            holder[key] = held.take(value)
            count += 1
        elif isinstance(value, str) and value:
            try:
                holder[key] = b64decode(value, validate=True)
                count += 1
            except (binascii.Error, ValueError):
                pass
    return count


def held_to_base64(message: dict[str, Any], held: HeldMedia) -> None:
    """A message leaving without bin (a JSON line or body, or a frame no native-bytes rule covers) on a
    connection that holds media: every held media token becomes its bytes' standard base64, in place. A safety
    net: holds are opened only for replies that go as MessagePack with bin, so a token meets this only when a
    handler put its held block in some other message."""
    for holder, key in list(media_slots(message)):
        value = holder.get(key)
        if is_token(value):
            holder[key] = bytes_to_base64(held.take(value))


def bin_to_media(message: dict[str, Any], bins: int, *, keep_bytes: bool = False) -> None:
    """On receipt: every bin at a media field becomes the base64 the SDK's models require (in place), or with
    `keep_bytes` a placeholder for call_tool_native. `bins` is how many bins the payload held: one anywhere
    else is refused (SPEC 8.3, forbidden-type)."""
    convert: Callable[[bytes], str] = ASIDE.hold if keep_bytes else bytes_to_base64
    found = 0
    for holder, key in list(media_slots(message)):
        value = holder.get(key)
        if isinstance(value, bytes):
            holder[key] = convert(value)
            found += 1
    if found != bins:
        raise outside_media(message)
