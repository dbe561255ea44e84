"""HTTP content codings (SPEC 10) on what this Python has: zstd, br, gzip, as the TS side's runtime/zlib-codings.ts.

gzip is the stdlib's `zlib`, always there. zstd is `compression.zstd` (Python 3.14) or, before it,
`backports.zstd`, the same API backported (the optional extra `mcp-msgpack[zstd]`): that is also the module
httpx2, the SDK's HTTP client, decodes zstd replies with, so a client that has it both offers and decodes
zstd without a coder of ours. br is the `brotli` package (extra `mcp-msgpack[brotli]`; httpx2 decodes br
with it too). A coding whose module is missing is neither offered nor taken.

Decoding is bounded: every decoder here is asked for at most the bytes left under the cap, so a ratio bomb
allocates no more than the cap before it is refused (SPEC 10.3 rule 2, 10.4)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, Literal, Protocol

from .mcp_dictionary import dictionary_decompressor

ContentCoding = Literal["zstd", "br", "gzip"]
DecodedCoding = Literal["zstd", "br", "gzip", "mcp-dict-v1"]
"""What a receiver decodes: the codings of SPEC 10.1, the dictionary coding (10.5) on one-body replies only."""


def _import_zstd() -> ModuleType | None:
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]  # Python 3.14

        return zstd  # type: ignore[no-any-return,unused-ignore]
    except ImportError:
        pass
    try:
        from backports import zstd as backport  # type: ignore[import-not-found,unused-ignore]

        return backport  # type: ignore[no-any-return,unused-ignore]
    except ImportError:
        return None


def _import_brotli() -> ModuleType | None:
    try:
        import brotli  # type: ignore[import-not-found,import-untyped,unused-ignore]

        return brotli  # type: ignore[no-any-return,unused-ignore]
    except ImportError:
        return None


_zstd: Any = _import_zstd()
_brotli: Any = _import_brotli()

_PRESENT: tuple[tuple[ContentCoding, bool], ...] = (("zstd", _zstd is not None), ("br", _brotli is not None), ("gzip", True))
CODINGS: tuple[ContentCoding, ...] = tuple(coding for coding, there in _PRESENT if there)
"""The codings this Python encodes and decodes, in the server's order of preference (SPEC 10.2 rule 1)."""

# The levels of the TS side (runtime/zlib-codings.ts, measured there on a recorded filesystem session): zstd 3,
# Brotli 4, gzip 5 (gzip 6's bytes at less CPU); Brotli 5 from 8 KiB, and zstd 9 from 64 KiB, where a higher
# level finds the copies a large body holds (zstd 9 is the knee: 248 bytes less than 6 on the corpus's 109 KB
# reply for about 0.35 ms; 12 adds 1.4 ms for 73 more). zstd stays 3 under 64 KiB: zstd 4-6 there leave the
# recorded filesystem session above 0.6x of JSON + gzip 6's bytes on the TS side (0.600-0.612x) for up to 1.7x
# the server CPU on the bench's 50 KB shapes; under favor='bytes' (the default) those replies go in Brotli 5
# where the client takes br (favored_order below). Streams keep the lower level.
ZSTD_LEVEL = 3
BROTLI_QUALITY = 4
GZIP_LEVEL = 5
MEDIUM_BODY_BYTES = 8 * 1024
LARGE_BODY_BYTES = 64 * 1024
ZSTD_LEVEL_LARGE = 9
BROTLI_QUALITY_MEDIUM = 5

Favor = Literal["bytes", "cpu"]
"""What `CompressionPolicy.favor` trades: fewer bytes (the default) or less server CPU (the TS side's `favor`)."""

FAVORS: tuple[Favor, ...] = ("bytes", "cpu")

BYTES_FAVORED_FROM = MEDIUM_BODY_BYTES
BYTES_FAVORED_BELOW = LARGE_BODY_BYTES
"""`favor='bytes'` codes one-body replies from 8 KiB and under 64 KiB in br (Brotli 5) where the client takes it:
on the TS side's recorded filesystem session 0.916x gzip 6's bytes there against zstd 3's 1.025x, which brings
the session to 0.6x of JSON + gzip 6's bytes; zstd stays first under 8 KiB and from 64 KiB (zstd 9)."""


def favored_order(codings: tuple[ContentCoding, ...], favor: Favor, size: int) -> tuple[ContentCoding, ...]:
    """The codings, best first, for a one-body reply of `size` bytes: br first in the favored range under
    `favor='bytes'` (where this Python has `brotli`; without it, the order as it is), else as given."""
    if favor == "bytes" and "br" in codings and BYTES_FAVORED_FROM <= size < BYTES_FAVORED_BELOW:
        return ("br", *(coding for coding in codings if coding != "br"))
    return codings


REPLY_MIN_BYTES = 256
"""A one-body reply smaller than this goes uncoded in zstd, br or gzip (SPEC 10.2 rule 3; the TS side's figure)."""

REQUEST_MIN_BYTES = 1024
"""A request body smaller than this goes uncoded (SPEC 10.3 rule 1; the TS side's REQUEST_COMPRESSION_MIN_BYTES)."""

_DECODE_STEP = 64 * 1024
"""Bytes a decoder may produce per step: the most a step holds beyond what the cap allows."""


class DecodedTooLarge(Exception):
    """The decoded bytes would pass the cap (SPEC 10.4: 413 on the server, over the cap on the client)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"decoded size over {max_bytes} bytes")
        self.max_bytes = max_bytes


class CodingError(Exception):
    """Coded bytes that do not decode: corrupt, cut before the coding's end, or followed by more bytes."""


def known_coding(token: str) -> ContentCoding | None:
    """A coding of SPEC 10.1 by its token (`x-gzip` is gzip, RFC 9110 8.4.1.3), or None."""
    token = "gzip" if token == "x-gzip" else token
    return token if token in ("zstd", "br", "gzip") else None  # type: ignore[return-value]  # narrowed by the test


def encode(coding: ContentCoding, data: bytes) -> bytes:
    """`data` coded whole, at the level for its size."""
    if coding == "zstd":
        return bytes(_zstd.compress(data, level=ZSTD_LEVEL_LARGE if len(data) >= LARGE_BODY_BYTES else ZSTD_LEVEL))
    if coding == "br":
        medium = len(data) >= MEDIUM_BODY_BYTES
        return bytes(_brotli.compress(data, quality=BROTLI_QUALITY_MEDIUM if medium else BROTLI_QUALITY))
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


class StreamDecoder(Protocol):
    def feed(self, data: bytes) -> bytes: ...
    def finished(self) -> bool: ...


class _Decoder:
    """One coding's incremental decoder that never yields more than `max_bytes` in all."""

    def __init__(self, coding: DecodedCoding, max_bytes: int) -> None:
        self.coding = coding
        self.max_bytes = max_bytes
        self.total = 0
        self._engine: Any
        if coding == "zstd":
            self._engine = _zstd.ZstdDecompressor()
        elif coding == "br":
            self._engine = _brotli.Decompressor()
        elif coding == "mcp-dict-v1":
            self._engine = dictionary_decompressor()
        else:
            self._engine = zlib.decompressobj(31)

    def _count(self, out: bytes) -> bytes:
        self.total += len(out)
        if self.total > self.max_bytes:
            raise DecodedTooLarge(self.max_bytes)
        return out

    def _step(self) -> int:
        return max(1, min(_DECODE_STEP, self.max_bytes - self.total + 1))

    def feed(self, data: bytes) -> bytes:
        """The bytes `data` decodes to (so far): DecodedTooLarge past the cap, CodingError when corrupt."""
        parts: list[bytes] = []
        try:
            if self.coding in ("gzip", "mcp-dict-v1"):  # zlib's inflaters: gzip's member, or raw deflate
                engine = self._engine
                if engine.eof:
                    if data:
                        raise CodingError(f"bytes after the end of the {self.coding} stream")
                    return b""
                pending = data
                while True:
                    parts.append(self._count(engine.decompress(pending, self._step())))
                    pending = engine.unconsumed_tail
                    if engine.eof:
                        if engine.unused_data:
                            raise CodingError(f"bytes after the end of the {self.coding} stream")
                        break
                    if not pending:
                        break
            elif self.coding == "zstd":
                engine = self._engine
                if engine.eof:
                    if data:
                        raise CodingError("bytes after the end of the zstd frame")
                    return b""
                parts.append(self._count(engine.decompress(data, self._step())))
                while not engine.eof and not engine.needs_input:
                    parts.append(self._count(engine.decompress(b"", self._step())))
                if engine.eof and engine.unused_data:
                    raise CodingError("bytes after the end of the zstd frame")
            else:
                engine = self._engine
                if engine.is_finished():
                    if data:
                        raise CodingError("bytes after the end of the br stream")
                    return b""
                parts.append(self._count(engine.process(data, output_buffer_limit=self._step())))
                while not engine.can_accept_more_data():
                    parts.append(self._count(engine.process(b"", output_buffer_limit=self._step())))
        except (DecodedTooLarge, CodingError):
            raise
        except Exception as exc:  # zlib.error, ZstdError, brotli.error: the coding is broken
            raise CodingError(f"the {self.coding} bytes do not decode ({exc})") from exc
        return b"".join(parts)

    def finished(self) -> bool:
        """Whether the coding's end has been read (a stream cut before it is a truncated coding)."""
        if self.coding == "br":
            return bool(self._engine.is_finished())
        return bool(self._engine.eof)


def stream_decoder(coding: DecodedCoding, max_bytes: int) -> StreamDecoder:
    """An incremental decoder of a coded stream, `max_bytes` in all."""
    return _Decoder(coding, max_bytes)


def decode(coding: DecodedCoding, data: bytes, max_bytes: int) -> bytes:
    """A whole coded body decoded within `max_bytes`, checked while inflating: DecodedTooLarge past it, CodingError
    for bytes that do not decode or stop before the coding's end."""
    decoder = _Decoder(coding, max_bytes)
    out = decoder.feed(data)
    if not decoder.finished():
        raise CodingError(f"the {coding} bytes end before the coding does (truncated)")
    return out


class StreamEncoder:
    """One compression context for a whole event stream, flushed at each event (SPEC 10.2 rule 4): what `event`
    returns decodes, with what came before, to every byte written so far."""

    def __init__(self, coding: ContentCoding) -> None:
        self.coding = coding
        self._flush: Callable[[bytes], bytes]
        self._end: Callable[[], bytes]
        if coding == "zstd":
            compressor = _zstd.ZstdCompressor(level=ZSTD_LEVEL)
            flush_block, flush_frame = _zstd.ZstdCompressor.FLUSH_BLOCK, _zstd.ZstdCompressor.FLUSH_FRAME
            self._flush = lambda data: bytes(compressor.compress(data, mode=flush_block))
            self._end = lambda: bytes(compressor.compress(b"", mode=flush_frame))
        elif coding == "br":
            engine = _brotli.Compressor(quality=BROTLI_QUALITY)
            self._flush = lambda data: bytes(engine.process(data)) + bytes(engine.flush())
            self._end = lambda: bytes(engine.finish())
        else:
            gzip = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)
            self._flush = lambda data: gzip.compress(data) + gzip.flush(zlib.Z_SYNC_FLUSH)
            self._end = lambda: gzip.flush(zlib.Z_FINISH)

    def event(self, data: bytes) -> bytes:
        """`data` (one event, or all of it the stream has now) coded and flushed."""
        return self._flush(data)

    def end(self) -> bytes:
        """The coding's end, once the stream ends."""
        return self._end()
