"""What CPython builds for the payloads SPEC 4.1.9's heap rule is about (issue 39): tracemalloc around
`msgpack.unpackb`, the built value's bytes over the payload's, beside this receiver's estimate
(`wire/guard.py`) and bound (`ReceiveLimits.heap_bound`: the larger of 3 MiB and 12 N).

    python bench/measure_heap.py   (from python/)
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

import msgpack

from mcp_msgpack.wire import ReceiveLimits, WireError
from mcp_msgpack.wire.guard import guard_payload

ROOT = Path(__file__).resolve().parents[2]


def built(data: bytes) -> int:
    tracemalloc.start()
    value = msgpack.unpackb(data, raw=False, strict_map_key=False)
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del value
    return size


def array32(unit: bytes, count: int) -> bytes:
    return b"\xdd" + count.to_bytes(4, "big") + unit * count


def main() -> None:
    payloads = {
        "1M fixints -32 (within SPEC's budget)": array32(b"\xe0", 1_000_000),
        "accept/heap-floor (32,768 bytes)": (ROOT / "fixtures" / "accept" / "heap-floor.frame").read_bytes()[4:],
        "16,000 maps {'': {}}": array32(b"\x81\xa0\x80", 16_000),
        "65,536 16-byte strs": array32(b"\xb0" + b"t" * 16, 65_536),
    }
    print(f"payload: bytes, built by CPython (x the payload, bytes a byte), this receiver (bound {ReceiveLimits().heap_base})")
    for name, data in payloads.items():
        size = built(data)
        try:
            guard_payload(data)
            verdict = "accepted"
        except WireError as error:
            verdict = f"refused ({error.code})"
        print(f"{name}: {len(data):,} bytes, {size:,} built ({size / len(data):.1f}x), {verdict}")
    print(f"msgpack {'.'.join(map(str, msgpack.version))}, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
