"""The native-bytes extension (SPEC 8): bin in MCP's base64 media fields, negotiated, converted at the edge."""

from __future__ import annotations

import binascii
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ..wire import WireError

try:  # SIMD base64 (optional, `pip install mcp-msgpack[fast]`): a 5 MiB image's base64 -> bytes in ~1-15 ms
    # where binascii takes 30-80 ms, the larger part of a native-bytes reply's server CPU (README, Costs).
    from pybase64 import b64decode, b64encode
except ImportError:  # pragma: no cover - the stdlib's, same results
    from base64 import b64decode, b64encode

EXTENSION = "io.github.mcp-msgpack/native-bytes"
LEGACY_EXPERIMENTAL = "mcp-msgpack/native-bytes"  # 0.1.0's key under capabilities.experimental
ENTRY = {"version": 1}
# Where a request asks its transport to hand the result's media over as bytes (call_tool_native): a private
# _meta member the transport removes before the message leaves the process.
NATIVE_RESULT_META = "mcp-msgpack/native-result"
PLACEHOLDER_PREFIX = "mcp-msgpack-bytes-"


def announced_version(capabilities: object) -> int | None:
    """The extension's version in `capabilities` read as SPEC 8.1 says: `extensions` first, and when it holds
    an entry that entry alone decides; else `experimental`. None when not announced (or malformed)."""
    if not isinstance(capabilities, dict):
        return None
    extensions = capabilities.get("extensions")
    if isinstance(extensions, dict) and EXTENSION in extensions:
        entry = extensions[EXTENSION]
    else:
        experimental = capabilities.get("experimental")
        if not isinstance(experimental, dict) or LEGACY_EXPERIMENTAL not in experimental:
            return None
        entry = experimental[LEGACY_EXPERIMENTAL]
    version = entry.get("version") if isinstance(entry, dict) else None
    return version if type(version) is int else None


def announce(capabilities: dict[str, Any]) -> dict[str, Any]:
    """A copy of `capabilities` announcing the extension under both keys (SPEC 8.1)."""
    out = dict(capabilities)
    out["extensions"] = {**(out.get("extensions") or {}), EXTENSION: dict(ENTRY)}
    out["experimental"] = {**(out.get("experimental") or {}), LEGACY_EXPERIMENTAL: dict(ENTRY)}
    return out


def _blocks(content: object) -> Iterator[dict]:
    """Content blocks of a `content` member (one block or a list), with a tool_result's blocks one level in."""
    items = content if isinstance(content, list) else [content]
    for block in items:
        if isinstance(block, dict):
            yield block
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                yield from (inner for inner in block["content"] if isinstance(inner, dict))


def _media_slots(block: dict) -> Iterator[tuple[dict, str]]:
    kind = block.get("type")
    if kind in ("image", "audio"):
        yield block, "data"
    elif kind == "resource" and isinstance(block.get("resource"), dict):
        yield block["resource"], "blob"


def _messages_content(messages: object) -> Iterator[dict]:
    if isinstance(messages, list):
        for entry in messages:
            if isinstance(entry, dict):
                yield from _blocks(entry.get("content"))


def media_slots(message: dict) -> Iterator[tuple[dict, str]]:
    """Every (holder, key) of SPEC 8.2 in a message: where bin may stand in place of base64."""
    result = message.get("result")
    if isinstance(result, dict):
        if "content" in result:
            for block in _blocks(result["content"]):
                yield from _media_slots(block)
        for block in _messages_content(result.get("messages")):
            yield from _media_slots(block)
        contents = result.get("contents")
        if isinstance(contents, list):
            for entry in contents:
                if isinstance(entry, dict):
                    yield entry, "blob"
        requests = result.get("inputRequests")
        if isinstance(requests, (dict, list)):
            for entry in requests.values() if isinstance(requests, dict) else requests:
                if isinstance(entry, dict) and entry.get("method") == "sampling/createMessage":
                    params = entry.get("params")
                    if isinstance(params, dict):
                        for block in _messages_content(params.get("messages")):
                            yield from _media_slots(block)
    params = message.get("params")
    if isinstance(params, dict):
        if message.get("method") == "sampling/createMessage":
            for block in _messages_content(params.get("messages")):
                yield from _media_slots(block)
        responses = params.get("inputResponses")
        if isinstance(responses, (dict, list)):
            for entry in responses.values() if isinstance(responses, dict) else responses:
                if isinstance(entry, dict) and "content" in entry:
                    for block in _blocks(entry["content"]):
                        yield from _media_slots(block)


def base64_to_bin(message: dict) -> int:
    """On send, in force: every base64 media field becomes bin (in place), and every placeholder of
    `native_image`/`native_audio`/`native_blob` its bytes. Returns how many. A field that is not valid
    standard base64 is left as it is (the peer gets what the application wrote)."""
    count = 0
    for holder, key in list(media_slots(message)):
        value = holder.get(key)
        if isinstance(value, str) and value:
            held = ASIDE.take(value)
            if held is not None:
                holder[key] = held
                count += 1
                continue
            try:
                holder[key] = b64decode(value, validate=True)
                count += 1
            except (binascii.Error, ValueError):
                pass
    return count


def resolve_placeholders(message: dict) -> bool:
    """Where native bytes are not in force: every placeholder becomes the base64 of its bytes (in place).
    Returns whether there was one."""
    found = False
    for holder, key in list(media_slots(message)):
        held = ASIDE.take(holder.get(key))
        if held is not None:
            holder[key] = b64encode(held).decode("ascii")
            found = True
    return found


class _Aside:
    """Bytes held for call_tool_native, under placeholders that stand in the SDK's str fields."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, bytes] = {}
        self._next = itertools.count()

    def hold(self, data: bytes) -> str:
        with self._lock:
            placeholder = f"{PLACEHOLDER_PREFIX}{next(self._next)}"
            self._held[placeholder] = data
        return placeholder

    def __bool__(self) -> bool:
        return bool(self._held)

    def take(self, placeholder: object) -> bytes | None:
        if not isinstance(placeholder, str) or not placeholder.startswith(PLACEHOLDER_PREFIX):
            return None
        with self._lock:
            return self._held.pop(placeholder, None)


ASIDE = _Aside()


def _bins_within(value: object) -> int:
    """How many bins (bytes) stand anywhere in `value`."""
    if isinstance(value, bytes):
        return 1
    if isinstance(value, dict):
        return sum(_bins_within(item) for item in value.values())
    if isinstance(value, list):
        return sum(_bins_within(item) for item in value)
    return 0


def _media_bins(message: dict) -> int:
    return sum(1 for holder, key in media_slots(message) if isinstance(holder.get(key), bytes))


def _outside_media(message: dict) -> WireError:
    error = WireError("forbidden-type", "8.3", "a bin outside the media fields of SPEC 8.2")
    if "id" in message:
        error.with_id(message["id"], "request" if "method" in message else "response")
    return error


def check_bin_places(value: object, bins: int) -> None:
    """SPEC 8.3 on a decoded value that held `bins` bins (4.1.3 let each through at a data or blob member):
    each must stand at a media field of 8.2 in its message. Raises WireError forbidden-type, rule 8.3. A map
    is one message, an array a batch of them (SPEC 9.4); what is not a map is no message, and is left to
    4.2, which comes after this check (SPEC 4.3 step 4)."""
    if not bins:
        return
    if isinstance(value, dict):
        if _media_bins(value) != bins:
            raise _outside_media(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and _media_bins(item) != _bins_within(item):
                raise _outside_media(item)


def bin_to_media(message: dict, bins: int, *, keep_bytes: bool = False) -> None:
    """On receipt: every bin at a media field becomes the base64 the SDK's models require (in place), or with
    `keep_bytes` a placeholder for call_tool_native. `bins` is how many bins the payload held: one anywhere
    else is refused (SPEC 8.3, forbidden-type)."""
    convert: Callable[[bytes], str] = ASIDE.hold if keep_bytes else (lambda data: b64encode(data).decode("ascii"))
    found = 0
    for holder, key in list(media_slots(message)):
        value = holder.get(key)
        if isinstance(value, bytes):
            holder[key] = convert(value)
            found += 1
    if found != bins:
        raise _outside_media(message)
