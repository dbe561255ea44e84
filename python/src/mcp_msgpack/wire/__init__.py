"""msgpack-v1, the wire: canonical encoding, frames, the guarded decoder and the stream readers."""

from .decode import decode_payload, decode_value
from .jsonrpc import check_message
from .encode import encode_frame, encode_payload, frame_payload
from .errors import WireError
from .guard import guard_payload
from .limits import DEFAULT_MAX_FRAME_BYTES, MIXED_FRAME_LIMIT, ReceiveLimits
from .reader import FRAME, LINE, FrameReader, StreamReader

__all__ = [
    "DEFAULT_MAX_FRAME_BYTES",
    "FRAME",
    "LINE",
    "MIXED_FRAME_LIMIT",
    "FrameReader",
    "ReceiveLimits",
    "StreamReader",
    "WireError",
    "check_message",
    "decode_payload",
    "decode_value",
    "encode_frame",
    "encode_payload",
    "frame_payload",
    "guard_payload",
]
