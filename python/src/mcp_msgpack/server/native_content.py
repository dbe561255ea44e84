"""`native_image`, `native_audio`: content blocks for a tool result that holds the bytes (a file it read),
SPEC 8.4's server side of `call_tool_native`.

The block's `data` is the bytes' standard base64, made here once (SIMD `pybase64` when installed: about
0.3 ms a MiB). Earlier releases put a placeholder there and kept the bytes aside until one of this package's
transports resolved it; every other path (the SDK's own transports, an event store, a reply dropped before
it was written) then sent the placeholder as the image or kept the bytes forever (issue 39). A real value
is right on every path, and its bytes go with the block: to a peer with native bytes in force the
transports send bin (the base64 decoded at the edge, about 0.1 ms a MiB), to any other the base64 as it is.
"""

from __future__ import annotations

from ..shared.sdk_compat import types

from ..shared.media_conversion import bytes_to_base64


def native_image(data: bytes, mime_type: str) -> types.ImageContent:
    """An image content block for a tool result from the bytes in hand: bin to a client with native bytes,
    standard base64 to any other, on every transport (the SDK's too)."""
    # By alias, which both SDK lines accept (1.x names the field `mimeType`, 2.x `mime_type`).
    return types.ImageContent.model_validate({"type": "image", "mimeType": mime_type, "data": bytes_to_base64(data)})


def native_audio(data: bytes, mime_type: str) -> types.AudioContent:
    """An audio content block, as `native_image`."""
    return types.AudioContent.model_validate({"type": "audio", "mimeType": mime_type, "data": bytes_to_base64(data)})
