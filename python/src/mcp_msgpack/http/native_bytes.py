"""Native bytes over HTTP (SPEC 8): the capability entry, and the edge between bin and the SDK's base64.

The SDK's models hold media as base64 `str`. A receiver turns each bin found at a media field (SPEC 8.2) into
that base64 before the message reaches the SDK; a sender with the extension in force turns the base64 at those
fields back into bytes, which the encoder writes as bin. Nothing outside the listed fields is walked, except to
find a bin where none may stand (SPEC 8.3), and that walk runs only when the payload could hold a bin at all.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

EXTENSION = "io.github.mcp-msgpack/native-bytes"
LEGACY_EXPERIMENTAL = "mcp-msgpack/native-bytes"
"""The key 0.1.0 peers read, under `capabilities.experimental` (SPEC 8.1)."""
CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
_ENTRY = {"version": 1}

# bin 8/16/32 headers; a payload without any of these bytes holds no bin.
_BIN_MARKERS = (b"\xc4", b"\xc5", b"\xc6")


def announced_version(capabilities: Any) -> int | None:
    """The extension's version in a capabilities map, `extensions` first (SPEC 8.1), or None."""
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


def announce(capabilities: dict[str, Any]) -> None:
    """Put the entry under both keys, so 0.1.0 peers and `extensions`-only peers both see it (SPEC 8.1)."""
    capabilities.setdefault("extensions", {})[EXTENSION] = dict(_ENTRY)
    capabilities.setdefault("experimental", {})[LEGACY_EXPERIMENTAL] = dict(_ENTRY)


def offers(capabilities: Any) -> bool:
    version = announced_version(capabilities)
    return version is not None and version >= 1


def confirms(capabilities: Any) -> bool:
    return announced_version(capabilities) == 1


def request_offers(message: dict[str, Any]) -> bool:
    """Whether a request offers the extension: in `initialize`'s capabilities or its 2026-07-28 `_meta`."""
    params = message.get("params")
    if not isinstance(params, dict):
        return False
    if message.get("method") == "initialize":
        return offers(params.get("capabilities"))
    meta = params.get("_meta")
    return isinstance(meta, dict) and offers(meta.get(CLIENT_CAPABILITIES_META))


def may_hold_bin(payload: bytes | bytearray | memoryview) -> bool:
    data = bytes(payload) if isinstance(payload, memoryview) else payload
    return any(marker in data for marker in _BIN_MARKERS)


# --- the media fields (SPEC 8.2) -------------------------------------------------------------------------


def _convert_block(block: Any, convert: Callable[[Any], Any], nested: bool = True) -> None:
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind in ("image", "audio"):
        if "data" in block:
            block["data"] = convert(block["data"])
    elif kind == "resource":
        resource = block.get("resource")
        if isinstance(resource, dict) and "blob" in resource:
            resource["blob"] = convert(resource["blob"])
    elif kind == "tool_result" and nested:
        for inner in _blocks(block.get("content")):
            _convert_block(inner, convert, nested=False)


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return content
    return [content] if isinstance(content, dict) else []


def _convert_messages(messages: Any, convert: Callable[[Any], Any]) -> None:
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict):
                for block in _blocks(message.get("content")):
                    _convert_block(block, convert)


def _entries(container: Any) -> list[Any]:
    if isinstance(container, dict):
        return list(container.values())
    return container if isinstance(container, list) else []


def convert_media(message: dict[str, Any], convert: Callable[[Any], Any]) -> None:
    """Apply `convert` to every media field of one JSON-RPC message, in place (SPEC 8.2's list)."""
    result = message.get("result")
    if isinstance(result, dict):
        for block in _blocks(result.get("content")):
            _convert_block(block, convert)
        _convert_messages(result.get("messages"), convert)
        contents = result.get("contents")
        if isinstance(contents, list):
            for entry in contents:
                if isinstance(entry, dict) and "blob" in entry:
                    entry["blob"] = convert(entry["blob"])
        for entry in _entries(result.get("inputRequests")):
            if isinstance(entry, dict) and entry.get("method") == "sampling/createMessage":
                params = entry.get("params")
                if isinstance(params, dict):
                    _convert_messages(params.get("messages"), convert)
    params = message.get("params")
    if isinstance(params, dict):
        if message.get("method") == "sampling/createMessage":
            _convert_messages(params.get("messages"), convert)
        for entry in _entries(params.get("inputResponses")):
            if isinstance(entry, dict):
                for block in _blocks(entry.get("content")):
                    _convert_block(block, convert)


def _bin_to_base64(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    return value


def _base64_to_bin(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            return value  # not standard base64: sent as the string it is, which a receiver reads as before
    return value


def holds_bin(value: Any) -> bool:
    """Whether any bin is left anywhere in a decoded value."""
    if isinstance(value, (bytes, bytearray)):
        return True
    if isinstance(value, dict):
        return any(holds_bin(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_bin(v) for v in value)
    return False


def media_to_base64(message: dict[str, Any]) -> None:
    """Receiving: the bin at media fields becomes base64, as the SDK's models require."""
    convert_media(message, _bin_to_base64)


def media_to_bin(message: dict[str, Any]) -> None:
    """Sending with the extension in force: base64 at media fields goes as bin."""
    convert_media(message, _base64_to_bin)
