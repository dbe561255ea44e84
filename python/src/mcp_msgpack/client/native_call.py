"""`call_tool_native`: a tool's result with its media as bytes, without a base64 round trip (SPEC 8.4).
The server side's counterpart, content blocks that carry bytes, is `mcp_msgpack.server.native_content`."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import mcp_types as types

from ..shared.extension import NATIVE_RESULT_META
from ..shared.placeholders import ASIDE


def _as_bytes(value: str) -> bytes | str:
    held = ASIDE.take(value)
    if held is not None:
        return held
    try:
        return base64.b64decode(value, validate=True)  # the server sent base64 (JSON, or no native bytes)
    except (binascii.Error, ValueError):
        return value


def _media_to_bytes(block: Any) -> Any:
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return block.model_copy(update={"data": _as_bytes(block.data)})
    if isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
        return block.model_copy(update={"resource": block.resource.model_copy(update={"blob": _as_bytes(block.resource.blob)})})
    return block


async def call_tool_native(client_or_session: Any, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> types.CallToolResult:
    """Calls a tool like `call_tool` on an `mcp.Client` or `ClientSession`, and returns its result with every
    image/audio `data` and resource `blob` as `bytes`. Over msgpack-v1 with native bytes the transport hands the
    bytes over as they arrived (no base64 encode and decode); otherwise the base64 the server sent is decoded
    once here. The result's models hold bytes where their type says str: read them, do not re-validate them."""
    meta = dict(kwargs.pop("meta", None) or {})
    meta[NATIVE_RESULT_META] = True
    result = await client_or_session.call_tool(name, arguments, meta=meta, **kwargs)
    return result.model_copy(update={"content": [_media_to_bytes(block) for block in result.content]})
