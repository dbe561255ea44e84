"""Splitting a byte stream into messages: msgpack-v1 frames (SPEC 2), JSON lines, or both (SPEC 7.4)."""

from __future__ import annotations

from .errors import WireError
from .limits import DEFAULT_MAX_FRAME_BYTES

# A message whose first byte is one of these is a JSON line (SPEC 7.2, 7.4): { [ whitespace, a UTF-8 BOM.
JSON_START = frozenset(b"{[ \t\r\n\xef")

LINE = "line"
FRAME = "frame"

# What the reader expects at each message's first byte.
JSON = "json"  # lines only (MCP's stdio wire)
FRAMES = "frames"  # frames only
MIXED = "mixed"  # either, by the first byte (SPEC 7.4)
DETECT = "detect"  # a server's first byte decides JSON or frames for good (SPEC 7.2)
JSON_UNTIL_FRAME = "json-until-frame"  # a server that accepted an upgrade: lines until the first frame (7.1)


# A frame this large or larger leaves the buffer as soon as it is read (StreamReader.next).
_LARGE_FRAME = 1 << 20


class StreamReader:
    """An incremental reader: `feed` bytes as they arrive, then take messages with `next()` until it gives
    None. `mode` may change between messages (an upgrade's switch point), and holds for the bytes not read
    yet. Each message is `(LINE, text_bytes)` (the line without its line ending; blank lines are skipped) or
    `(FRAME, payload)`. Framing errors (SPEC 5.1) raise WireError; after one the stream is unusable."""

    def __init__(self, mode: str = FRAMES, max_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self.mode = mode
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._start = 0  # where the next message begins in _buf
        self._scanned = 0  # how far past _start a line's end was already looked for
        self._want = -1  # a frame's payload length, once its header was read

    def feed(self, chunk: bytes | bytearray | memoryview) -> None:
        if self._start and self._start * 2 >= len(self._buf):
            del self._buf[: self._start]  # drop what was read, at most once per its own length
            self._start = 0
        self._buf += chunk

    @property
    def pending(self) -> int:
        """Bytes received and not yet returned as a message."""
        return len(self._buf) - self._start

    def next(self) -> tuple[str, bytes] | None:
        buf = self._buf
        while len(buf) > self._start:
            start = self._start
            if self._want < 0 and self._scanned == 0:
                first = buf[start]
                mode = self.mode
                if mode == DETECT:
                    self.mode = mode = JSON if first in JSON_START else FRAMES
                elif mode == JSON_UNTIL_FRAME and first not in JSON_START:
                    self.mode = mode = FRAMES
                is_line = mode == JSON or mode == JSON_UNTIL_FRAME or (mode == MIXED and first in JSON_START)
            else:
                is_line = self._want < 0
            if is_line:
                end = buf.find(b"\n", start + self._scanned)
                if end < 0:
                    self._scanned = len(buf) - start
                    if self._scanned > self.max_bytes:
                        raise WireError("line-too-long", "2", f"a line longer than {self.max_bytes} bytes")
                    return None
                self._scanned = 0
                self._start = end + 1
                if end - start > self.max_bytes:
                    raise WireError("line-too-long", "2", f"a line longer than {self.max_bytes} bytes")
                if end > start and buf[end - 1] == 0x0D:
                    end -= 1
                line = bytes(memoryview(buf)[start:end])
                if line.strip():
                    return (LINE, line)
                continue  # a blank line
            if self._want < 0:
                if len(buf) - start < 4:
                    return None
                length = int.from_bytes(buf[start : start + 4], "big")
                if length > self.max_bytes:
                    raise WireError(
                        "frame-too-large", "2", f"a frame of {length} bytes announced, the cap is {self.max_bytes}"
                    )
                self._want = length
            end = start + 4 + self._want
            if len(buf) < end:
                return None
            payload = bytes(memoryview(buf)[start + 4 : end])
            self._want = -1
            self._start = end
            if end - start >= _LARGE_FRAME and len(buf) - end < end:
                # A large frame's bytes leave the buffer now, not at the next feed, so they are not held twice
                # (buffer and payload) while it is decoded (bench/measure_rss.py --stdio); what follows it, less
                # than it, is copied to a fresh buffer.
                self._buf = bytearray(memoryview(buf)[end:])
                self._start = 0
            return (FRAME, payload)
        return None

    def rest(self) -> bytes:
        """The bytes received and not read yet (for handing them to another reader)."""
        return bytes(memoryview(self._buf)[self._start :])

    def close(self) -> None:
        """The stream ended: raises truncated-frame if it ended inside a frame or a line (SPEC 5.1, 7.4)."""
        pending = memoryview(self._buf)[self._start :]
        if len(pending) and (self._want >= 0 or not self._is_line_mode() or bytes(pending).strip()):
            raise WireError("truncated-frame", "2", f"the stream ended inside a message ({len(pending)} bytes)")

    def _is_line_mode(self) -> bool:
        if self.mode in (JSON, JSON_UNTIL_FRAME):
            return True
        return self.mode == MIXED and self._buf[self._start] in JSON_START


class FrameReader:
    """Splits a byte stream of msgpack-v1 frames (SPEC 2) into payloads, checking each header against the cap
    before its payload is kept. `feed(chunk)` returns the payloads completed by that chunk; `close()` at the
    end of the stream raises truncated-frame if it ended inside a frame."""

    def __init__(self, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self._reader = StreamReader(FRAMES, max_frame_bytes)

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[bytes]:
        self._reader.feed(chunk)
        payloads = []
        while (message := self._reader.next()) is not None:
            payloads.append(message[1])
        return payloads

    def close(self) -> None:
        self._reader.close()
