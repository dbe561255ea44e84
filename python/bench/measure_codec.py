"""msgpack against ormsgpack for msgpack-v1: canonical bytes on the golden fixtures, and encode + decode time
(interleaved rounds, best of each) on the fixtures, a 50 KB object result and a 5 MiB bin. Then the guarded
decode (SPEC 4.1) on the same payloads: the exact guard's Python reading + msgpack's build, against this
package's decode (the bulk path for payloads of many values, wire/bulk.py), against msgpack's unguarded build.

    python bench/measure_codec.py [--rounds 15]   # from python/

With `--policy`: the HTTP server's per-reply choice (SPEC 9.6, `encoding='cheapest-cpu'`), per reply shape,
what each encoding costs this CPython: the server's encode (the SDK's `model_dump_json` against plain values
+ the canonical encoder) and a Python client's decode (the SDK's `validate_json` against the guarded decoder
+ validation), interleaved rounds, best of each.

    python bench/measure_codec.py --policy [--rounds 9]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import msgpack
import ormsgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fixtures import expand, sources  # noqa: E402

from mcp_msgpack.wire import ReceiveLimits, encode_payload  # noqa: E402
from mcp_msgpack.wire.decode import build, decode_counting_bins  # noqa: E402
from mcp_msgpack.wire.encode import _normalize, _utf8_safe  # noqa: E402
from mcp_msgpack.wire.guard import guard_payload  # noqa: E402

CASES = [(name, _utf8_safe(_normalize(expand(src["message"]))), path.with_suffix(".frame").read_bytes()) for name, src, path in sources("cases")]


def object_result() -> dict:
    rows = [{"name": f"file-{i}.txt", "size": i * 37, "modified": "2026-11-26T12:00:00Z", "dir": i % 5 == 0} for i in range(800)]
    return {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "800 entries"}], "structuredContent": {"entries": rows}}}


def media_result() -> dict:
    return {"jsonrpc": "2.0", "id": 8, "result": {"content": [{"type": "image", "mimeType": "image/png", "data": bytes(range(256)) * 20480}]}}


CODECS = {
    "msgpack": (msgpack.Packer(use_bin_type=True).pack, lambda b: msgpack.unpackb(b, raw=False, strict_map_key=False)),
    "ormsgpack": (ormsgpack.packb, ormsgpack.unpackb),
}


def canonical(name: str) -> list[str]:
    pack = CODECS[name][0]
    out = []
    for case, value, frame in CASES:
        try:
            same = pack(value) == frame[4:]
        except Exception as exc:  # noqa: BLE001
            same = False
            case = f"{case} ({type(exc).__name__})"
        if not same:
            out.append(case)
    return out


def timed(pack, unpack, value, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        unpack(pack(value))
    return (time.perf_counter() - start) / repeat


def main(rounds: int) -> None:
    for name in CODECS:
        wrong = canonical(name)
        print(f"{name}: {len(CASES) - len(wrong)}/{len(CASES)} golden fixtures byte-identical" + (f" (differs: {', '.join(wrong)})" if wrong else ""))
    obj = object_result()
    media = media_result()
    print(f"object result: {len(msgpack.packb(obj))} bytes; media: {len(msgpack.packb(media, use_bin_type=True))} bytes")
    workloads = {
        "golden fixtures (all, one pass)": (lambda pack, unpack: sum(timed(pack, unpack, v, 1) for _, v, _ in CASES), 1),
        "50 KB object result": (lambda pack, unpack: timed(pack, unpack, obj, 20), 1),
        "5 MiB bin": (lambda pack, unpack: timed(pack, unpack, media, 5), 1),
    }
    best = {(w, c): float("inf") for w in workloads for c in CODECS}
    for _ in range(rounds):  # interleaved rounds
        for w, (run, _) in workloads.items():
            for c, (pack, unpack) in CODECS.items():
                best[(w, c)] = min(best[(w, c)], run(pack, unpack))
    for w in workloads:
        m, o = best[(w, "msgpack")], best[(w, "ormsgpack")]
        print(f"{w}: msgpack {m * 1e3:.3f} ms, ormsgpack {o * 1e3:.3f} ms, ormsgpack/msgpack {o / m:.2f}x")

    guarded(obj, media, rounds)


def guarded(obj: dict, media: dict, rounds: int) -> None:
    text = {"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text", "text": "x" * 65536}]}}
    small = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "small", "arguments": {}}}
    native = ReceiveLimits(allow_bin=True)
    payloads = {
        "small request": (encode_payload(small), ReceiveLimits()),
        "64 KB text result": (encode_payload(text), ReceiveLimits()),
        "50 KB object result": (encode_payload(obj), ReceiveLimits()),
        "5 MiB bin (native bytes)": (encode_payload(media), native),
    }
    ways = {
        "exact guard + build": lambda data, limits: build(data, guard_payload(data, limits).big_ints),
        "decode (bulk path)": lambda data, limits: decode_counting_bins(data, limits)[0],
        "msgpack unguarded": lambda data, limits: msgpack.unpackb(data, raw=False, strict_map_key=False),
    }
    best = {(p, w): float("inf") for p in payloads for w in ways}
    for _ in range(rounds):  # interleaved rounds
        for p, (data, limits) in payloads.items():
            repeat = 3 if len(data) > 1 << 20 else 20
            for w, decode in ways.items():
                assert decode(data, limits) == ways["msgpack unguarded"](data, limits)
                start = time.process_time()  # CPU time: on a loaded machine wall time counts other processes' turns
                for _ in range(repeat):
                    decode(data, limits)
                best[(p, w)] = min(best[(p, w)], (time.process_time() - start) / repeat)
    print(f"guarded decode, process CPU time, best of {rounds} interleaved rounds:")
    for p in payloads:
        exact, bulk, bare = (best[(p, w)] for w in ways)
        print(
            f"{p}: exact guard + build {exact * 1e3:.3f} ms, decode {bulk * 1e3:.3f} ms ({bulk / exact:.2f}x),"
            f" msgpack unguarded {bare * 1e3:.3f} ms (decode {bulk / bare:.1f}x of it)"
        )


def policy_shapes() -> dict[str, object]:
    """Reply shapes as the SDK's models, the sizes the TS calibration uses (its README's table)."""
    from mcp_types import JSONRPCResponse

    def reply(result: dict) -> JSONRPCResponse:
        return JSONRPCResponse(jsonrpc="2.0", id=7, result=result)

    def text(chars: int) -> JSONRPCResponse:
        body = ("def f(x):\n    return x  # \"quoted\"\n" * (chars // 36 + 1))[:chars]
        return reply({"content": [{"type": "text", "text": body}], "isError": False})

    shapes: dict[str, object] = {
        "small (ok result)": reply({"content": [{"type": "text", "text": "ok"}], "isError": False}),
        "tools list (3 tools)": reply({"tools": [{"name": f"t{i}", "description": "A tool.", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}} for i in range(3)]}),
    }
    for chars in (128, 512, 1024, 2048, 4096, 16384, 65536):
        shapes[f"text {chars} chars"] = text(chars)
    shapes["records 50 KB"] = reply(object_result()["result"])
    shapes["records 200 KB"] = reply({"structuredContent": {"entries": object_result()["result"]["structuredContent"]["entries"] * 4}, "content": []})
    shapes["short strings 50 KB"] = reply({"structuredContent": {"words": [f"w{i % 977}" for i in range(6000)]}, "content": []})
    shapes["embedding 1536 floats"] = reply({"structuredContent": {"vector": [i / 7 for i in range(1536)]}, "content": []})
    return shapes


def policy(rounds: int) -> None:
    from mcp_types import jsonrpc_message_adapter

    from mcp_msgpack.shared.http_codec import decode_msgpack, encode_msgpack, session_message
    from mcp_msgpack.wire import ReceiveLimits

    limits = ReceiveLimits()
    shapes = policy_shapes()
    sides = {
        "json encode": lambda m, j, b: m.model_dump_json(by_alias=True, exclude_unset=True),
        "msgpack encode": lambda m, j, b: encode_msgpack(m, native=False),
        "json decode": lambda m, j, b: jsonrpc_message_adapter.validate_json(j, by_name=False),
        "msgpack decode": lambda m, j, b: session_message(decode_msgpack(b, limits, native=False)),
    }
    best = {(s, k): float("inf") for s in shapes for k in sides}
    encoded = {s: (m.model_dump_json(by_alias=True, exclude_unset=True), encode_msgpack(m, native=False)) for s, m in shapes.items()}
    for _ in range(rounds):  # interleaved rounds
        for s, m in shapes.items():
            j, b = encoded[s]
            repeat = max(1, 200_000 // max(len(j), 1))
            for k, run in sides.items():
                start = time.perf_counter()
                for _ in range(repeat):
                    run(m, j, b)
                best[(s, k)] = min(best[(s, k)], (time.perf_counter() - start) / repeat)
    print("shape | JSON bytes | msgpack/JSON server encode | msgpack/JSON client decode | JSON encode us")
    for s in shapes:
        j, b = encoded[s]
        enc = best[(s, "msgpack encode")] / best[(s, "json encode")]
        dec = best[(s, "msgpack decode")] / best[(s, "json decode")]
        print(f"{s} | {len(j)} ({len(b) / len(j):.2f}x) | {enc:.2f}x | {dec:.2f}x | {best[(s, 'json encode')] * 1e6:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", action="store_true", help="the HTTP server's per-reply encoding calibration")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 15; 9 with --policy)")
    options = parser.parse_args()
    if options.policy:
        policy(options.rounds or 9)
    else:
        main(options.rounds or 15)
