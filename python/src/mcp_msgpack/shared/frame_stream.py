"""The HTTP frame stream (SPEC 9.3): msgpack-v1 frames in a response body, and its control maps."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from ..wire import FrameReader, encode_payload, frame_payload


def frame(payload: bytes) -> bytes:
    """One frame around an encoded payload (SPEC 2)."""
    return frame_payload(payload)


def control_frame(control: dict[str, object]) -> bytes:
    return frame_payload(encode_payload(control))


async def read_frames(chunks: AsyncIterable[bytes], max_frame_bytes: int) -> AsyncIterator[bytes]:
    """The payloads of the frames in a response body, each whole. A header over the cap (`frame-too-large`) or
    a body that ends inside a frame (`truncated-frame`) raises a framing error for this stream only (SPEC 9.4)."""
    reader = FrameReader(max_frame_bytes)
    async for chunk in chunks:
        for payload in reader.feed(chunk):
            yield payload
    reader.close()


def is_control_map(value: object) -> bool:
    return isinstance(value, dict) and "jsonrpc" not in value
