"""`native_image`, `native_audio`: content blocks for a tool result that holds the bytes (a file it read),
SPEC 8.4's server side of `call_tool_native`.

When the request being handled came through one of this package's transports with native bytes in force for
its reply, the block's `data` is a held media token and the bytes wait beside it (`shared/held_media.py`) until
the transport writes them as bin: no base64 is made or read on the way. Anywhere else (the JSON wire, a client
without native bytes, the SDK's own transports, an event store) `data` is the bytes' standard base64, made here
once (SIMD `pybase64` when installed: about 0.3 ms a MiB), right on every path. Earlier releases put a
placeholder there for every request, which reached stock clients as the image and kept the bytes of replies
never written (issue 39).
"""

from __future__ import annotations

from ..shared.held_media import current_hold
from ..shared.media_conversion import bytes_to_base64
from ..shared.sdk_compat import types


def _data(data: bytes) -> str:
    hold = current_hold()
    return hold.hold(data) if hold is not None else bytes_to_base64(data)


def native_image(data: bytes, mime_type: str) -> types.ImageContent:
    """An image content block for a tool result from the bytes in hand: bin to a client with native bytes,
    standard base64 to any other, on every transport (the SDK's too)."""
    # By alias, which both SDK lines accept (1.x names the field `mimeType`, 2.x `mime_type`).
    return types.ImageContent.model_validate({"type": "image", "mimeType": mime_type, "data": _data(data)})


def native_audio(data: bytes, mime_type: str) -> types.AudioContent:
    """An audio content block, as `native_image`."""
    return types.AudioContent.model_validate({"type": "audio", "mimeType": mime_type, "data": _data(data)})
