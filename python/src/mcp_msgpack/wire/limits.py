"""What a receiver accepts (SPEC 2 frame cap, 4.1.6 depth, 4.1.9 decode budget)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
# A frame on a mixed stream must stay under 0x09000000 bytes (SPEC 7.4 rule 4).
MIXED_FRAME_LIMIT = 0x09000000


@dataclass(frozen=True)
class ReceiveLimits:
    """A receiver's limits. The defaults are SPEC's; every receiver must accept payloads within them.

    The decode budget for a payload of N bytes (SPEC 4.1.9):
    containers (arrays, maps, bins) <= container_base + N // bytes_per_container;
    distinct short keys, and distinct map shapes, each <= key_base + N // bytes_per_key;
    words of built values <= word_base + N // bytes_per_word.
    """

    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES
    max_depth: int = 128
    container_base: int = 65_536
    bytes_per_container: int = 8
    key_base: int = 8_192
    bytes_per_key: int = 128
    word_base: int = 262_144
    bytes_per_word: int = 1
    # bin is refused unless native bytes are in force for this message (SPEC 4.1.3, 8.3).
    allow_bin: bool = False
    # CPython's own heap bound (SPEC 4.1.9 "A runtime's own heap": a runtime MAY refuse a value whose heap at its
    # own object sizes passes the larger of 3 MiB and 12 N, never less): SPEC's word sizes are a JavaScript
    # engine's, and CPython objects are larger (a 1-entry dict 184 bytes, an int outside -5..256 32, a short
    # str 56-64), so that SPEC's budget alone lets some shapes cost 25-40x their size here. The bound is the
    # larger of the two (not their sum): small payloads get heap_base to work in, and a 1 MiB payload 12 MiB,
    # so that with the body's own copy the whole process stays within 16x (python/bench/measure_rss.py).
    # Lowering either is a smaller bound than SPEC allows: payloads SPEC says every receiver accepts would be
    # refused (tests/test_heap_floor.py).
    heap_base: int = 3 * 1024 * 1024
    heap_per_byte: int = 12

    def heap_bound(self, payload_bytes: int) -> int:
        """The most estimated CPython heap a payload of `payload_bytes` may build."""
        return max(self.heap_base, payload_bytes * self.heap_per_byte)

    def __post_init__(self) -> None:
        if self.max_depth < 64:
            raise ValueError("max_depth must be at least 64 (SPEC 4.1.6: every receiver accepts depth 64)")
        for name in ("bytes_per_container", "bytes_per_key", "bytes_per_word"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")


DEFAULT_LIMITS = ReceiveLimits()
BIN_LIMITS = ReceiveLimits(allow_bin=True)
