"""What the Python wire costs per message, interleaved rounds, best of each (ratios are what count):

- sending: the SDK's JSON line (`model_dump_json`) against a msgpack-v1 frame (dump to Python values, the
  canonical encode), for the bench's call scenarios (small, text, a 50 KB object, 5 MiB media; media as base64
  in JSON, as bin with native bytes);
- receiving: the SDK's `validate_json` of the line against the guarded decode plus model validation;
- native bytes at the edge: base64 <-> bytes per MiB (what a receiver pays to hand bin to the SDK as base64,
  and a sender to turn the SDK's base64 into bin).

    python bench/measure_edges.py [--rounds 5]   # from python/
"""

from __future__ import annotations

import argparse
import base64
import time

import mcp_types as types

from mcp_msgpack.shared.media_conversion import base64_to_bin, bin_to_media
from mcp_msgpack.shared.message import from_session_message, to_session_message
from mcp_msgpack.wire import ReceiveLimits, decode_payload, encode_payload

MIB = 1024 * 1024
MEDIA = bytes(range(256)) * (5 * MIB // 256)


def response(result: dict) -> types.JSONRPCResponse:
    return types.JSONRPCResponse(jsonrpc="2.0", id=7, result=result)


SCENARIOS = {
    "small": response({"content": [{"type": "text", "text": "ok"}]}),
    "text 100 KB": response({"content": [{"type": "text", "text": "lorem ipsum dolor sit amet " * 4000}]}),
    "object 50 KB": response(
        {
            "content": [{"type": "text", "text": "800 entries"}],
            "structuredContent": {"entries": [{"name": f"file-{i}.txt", "size": i * 37, "modified": "2026-11-26T12:00:00Z", "dir": i % 5 == 0} for i in range(800)]},
        }
    ),
    "media 5 MiB": response({"content": [{"type": "image", "mimeType": "image/png", "data": base64.b64encode(MEDIA).decode()}]}),
}
BIN = ReceiveLimits(allow_bin=True)


def send_json(message):
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"


def send_frame(message, native):
    value = from_session_message(message)
    if native:
        base64_to_bin(value)
    return encode_payload(value)


def receive_json(line):
    return types.jsonrpc_message_adapter.validate_json(line, by_name=False)


def receive_frame(payload, native):
    value = decode_payload(payload, BIN if native else None)
    if native:
        bin_to_media(value, 1)
    return to_session_message(value)


def best(fn, rounds):
    out = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def main(interleaved: int) -> None:
    print("scenario: JSON line ms | frame ms (ratio frame/JSON), sending then receiving")
    for name, message in SCENARIOS.items():
        native = name.startswith("media")
        line, payload = send_json(message), send_frame(message, native)
        times = {k: float("inf") for k in ("sj", "sf", "rj", "rf")}
        rounds = 3 if native else 20
        for _ in range(interleaved):
            times["sj"] = min(times["sj"], best(lambda: send_json(message), rounds))
            times["sf"] = min(times["sf"], best(lambda: send_frame(message, native), rounds))
            times["rj"] = min(times["rj"], best(lambda: receive_json(line), rounds))
            times["rf"] = min(times["rf"], best(lambda: receive_frame(payload, native), rounds))
        print(
            f"{name} ({len(line)} B JSON, {len(payload)} B msgpack{', bin' if native else ''}): "
            f"send {times['sj'] * 1e3:.3f} | {times['sf'] * 1e3:.3f} ({times['sf'] / times['sj']:.2f}x); "
            f"receive {times['rj'] * 1e3:.3f} | {times['rf'] * 1e3:.3f} ({times['rf'] / times['rj']:.2f}x)"
        )
    # A tool that has the bytes (a file it read): base64 for the JSON line (what an SDK tool must do) against
    # native_image (its base64 made with pybase64), decoded to bin at the edge when the frame is written.
    from mcp_msgpack import native_image

    def json_from_bytes():
        block = {"type": "image", "mimeType": "image/png", "data": base64.b64encode(MEDIA).decode("ascii")}
        return send_json(response({"content": [block]}))

    def frame_from_bytes():
        block = native_image(MEDIA, "image/png").model_dump(mode="json", by_alias=True, exclude_none=True)
        return send_frame(response({"content": [block]}), True)

    tj = min(best(json_from_bytes, 3) for _ in range(interleaved))
    tf = min(best(frame_from_bytes, 3) for _ in range(interleaved))
    print(f"media 5 MiB from bytes: base64 + JSON line {tj * 1e3:.2f} ms | native_image + frame {tf * 1e3:.2f} ms ({tf / tj:.2f}x)")
    # What the edge calls (native_bytes: pybase64 when installed, else the stdlib's).
    from mcp_msgpack.shared.media_conversion import b64decode, b64encode

    text = base64.b64encode(MEDIA).decode()
    enc = min(best(lambda: b64encode(MEDIA).decode("ascii"), 3) for _ in range(interleaved)) / 5  # per MiB
    dec = min(best(lambda: b64decode(text, validate=True), 3) for _ in range(interleaved)) / 5  # per MiB
    print(f"native-bytes edge, per MiB: bytes -> base64 str (receipt, for the SDK's models) {enc * 1e3:.2f} ms; base64 str -> bytes (send) {dec * 1e3:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    main(parser.parse_args().rounds)
