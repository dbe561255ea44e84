"""`native_image`, `native_audio`: content blocks for a tool result that carry bytes without making base64
(SPEC 8.4, the server side of `call_tool_native`)."""

from __future__ import annotations

from ..shared.sdk_compat import types

from ..shared.placeholders import ASIDE


def native_image(data: bytes, mime_type: str) -> types.ImageContent:
    """An image content block for a tool result that carries `data` without making base64: sent as bin to a
    client with native bytes, as base64 (made once, when sent) to any other. The block's `data` is a
    placeholder that only this package's transports resolve: return it, do not read it."""
    # By alias, which both SDK lines accept (1.x names the field `mimeType`, 2.x `mime_type`).
    return types.ImageContent.model_validate({"type": "image", "mimeType": mime_type, "data": ASIDE.hold(bytes(data))})


def native_audio(data: bytes, mime_type: str) -> types.AudioContent:
    """An audio content block, as `native_image`."""
    return types.AudioContent.model_validate({"type": "audio", "mimeType": mime_type, "data": ASIDE.hold(bytes(data))})
