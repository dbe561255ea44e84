"""`call_tool_native`: a tool's result with its media as bytes, without a base64 round trip (SPEC 8.4).
The server side's counterpart, content blocks that carry bytes, is `mcp_msgpack.server.native_content`.

The result is this module's `NativeCallToolResult`, not the SDK's `CallToolResult`: the SDK's models type
media as `str` (base64), and a result whose `data` is `bytes` must say so to a type checker. Its field names
are the same on both SDK lines (1.x names the SDK's own `isError`, 2.x `is_error`)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from ..shared.extension import NATIVE_RESULT_META
from ..shared.placeholders import ASIDE
from ..shared.sdk_compat import types


@dataclass(frozen=True)
class NativeMedia:
    """An image or audio content block whose `data` is the media's bytes."""

    type: Literal["image", "audio"]
    data: bytes
    mime_type: str
    annotations: Any = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True)
class NativeBlob:
    """A blob resource's contents with `blob` as bytes."""

    uri: str
    blob: bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True)
class NativeResource:
    """An embedded resource content block whose blob is bytes (text resources stay the SDK's blocks)."""

    resource: NativeBlob
    type: Literal["resource"] = "resource"
    annotations: Any = None
    meta: dict[str, Any] | None = None


NativeContent = Union[NativeMedia, NativeResource, Any]
"""A block of `NativeCallToolResult.content`: media and blobs as this module's types, anything else (text,
resource links, text resources) as the SDK's own block."""


@dataclass(frozen=True)
class NativeCallToolResult:
    """A tool's result with every image/audio `data` and resource `blob` as `bytes`."""

    content: list[NativeContent]
    structured_content: dict[str, Any] | None = None
    is_error: bool = False
    meta: dict[str, Any] | None = None
    sdk_result: Any = field(default=None, repr=False)
    """The SDK's `CallToolResult` as the session returned it (its media fields are placeholders or base64)."""

    @property
    def media(self) -> list[NativeMedia]:
        """The image and audio blocks, in order."""
        return [block for block in self.content if isinstance(block, NativeMedia)]

    @property
    def blobs(self) -> list[NativeBlob]:
        """The blob resources' contents, in order."""
        return [block.resource for block in self.content if isinstance(block, NativeResource)]


def _as_bytes(value: str) -> bytes:
    held = ASIDE.take(value)
    if held is not None:
        return held
    try:
        return base64.b64decode(value, validate=True)  # the server sent base64 (JSON, or no native bytes)
    except (binascii.Error, ValueError):
        return value.encode("utf-8")  # not base64: what the server wrote, as bytes


def _field(model: Any, name_2x: str, name_1x: str) -> Any:
    return getattr(model, name_2x) if hasattr(model, name_2x) else getattr(model, name_1x, None)


def _native_block(block: Any) -> NativeContent:
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return NativeMedia(
            type=block.type,
            data=_as_bytes(block.data),
            mime_type=_field(block, "mime_type", "mimeType"),
            annotations=block.annotations,
            meta=block.meta,
        )
    if isinstance(block, types.EmbeddedResource) and isinstance(block.resource, types.BlobResourceContents):
        contents = block.resource
        blob = NativeBlob(uri=str(contents.uri), blob=_as_bytes(contents.blob), mime_type=_field(contents, "mime_type", "mimeType"), meta=contents.meta)
        return NativeResource(resource=blob, annotations=block.annotations, meta=block.meta)
    return block


async def call_tool_native(client_or_session: Any, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> NativeCallToolResult:
    """Calls a tool like `call_tool` on an `mcp.Client` or `ClientSession`, and returns its result with every
    image/audio `data` and resource `blob` as `bytes`. Over msgpack-v1 with native bytes the transport hands the
    bytes over as they arrived (no base64 encode and decode); otherwise the base64 the server sent is decoded
    once here."""
    meta = dict(kwargs.pop("meta", None) or {})
    meta[NATIVE_RESULT_META] = True
    result = await client_or_session.call_tool(name, arguments, meta=meta, **kwargs)
    return NativeCallToolResult(
        content=[_native_block(block) for block in result.content],
        structured_content=_field(result, "structured_content", "structuredContent"),
        is_error=bool(_field(result, "is_error", "isError")),
        meta=result.meta,
        sdk_result=result,
    )


__all__ = ["NativeBlob", "NativeCallToolResult", "NativeContent", "NativeMedia", "NativeResource", "call_tool_native"]
