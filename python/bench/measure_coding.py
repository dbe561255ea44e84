"""Content codings (SPEC 10, issue 41) on the recorded real-traffic corpus: wire bytes and CPU of the Python server
and client against JSON + gzip level 6 (what nginx and most middleware add), side by side in interleaved rounds.

    python bench/measure_coding.py [--rounds 5] [--corpus fs-session,everything-session]

The corpus is the TS bench's (packages/bench/corpus/*.jsonl: sessions recorded with the official filesystem server
and server-everything); bench/replay_app.py answers `replay {corpus, index}` with each recorded tools/call result,
on this package's app, once with compression off and once on (`compression=True`: the default 'auto' codes
nothing on loopback, where this runs). Each round, every variant replays the whole session on its own open MCP
session; the variants alternate their order from round to round:

- "JSON": the SDK's stock client against the server with compression off; its reply bodies, gzip'd at level 6
  in this process, are the baseline "JSON + gzip 6", whose CPU is the server's plus that gzip's;
- "stock client, coded": the SDK's stock client (httpx2 asks gzip, deflate, br, zstd) against compression on;
- "our client, coded": this package's client (MessagePack where the server picks it, 9.6; it names mcp-dict-v1,
  so replies of 96 B to 4 KiB come in the dictionary coding, 10.5) against compression on, and the same client
  against compression off for its own CPU.

Bytes are the reply bodies of the replay calls as they crossed the wire (coded); server CPU is the server
process's thread time (/proc schedstat); client CPU is this process's CPU time over the session. Ratios are the
median of the rounds' ratios, with their range. A coder table beside it times the coders alone on the same JSON
bodies (one coder call each, in this process): gzip 6 against the server's zstd, br and gzip levels, and the
dictionary coding where the server uses it.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import logging
import statistics
import sys
import time
from pathlib import Path

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client as sdk_streamable_http_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from http_peers import RecordingTransport, free_port, running  # noqa: E402
from measure_http import cpu_seconds, server_pid, summary  # noqa: E402
from replay_app import RESULTS  # noqa: E402

from mcp_msgpack.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_msgpack.shared import codings, mcp_dictionary  # noqa: E402


def _replay_bodies(recorder: RecordingTransport) -> list[bytes]:
    """The reply bodies (as on the wire) of the replay calls among the recorded exchanges."""
    bodies = []
    for exchange in recorder.exchanges:
        sent = exchange["request_body"]
        if exchange["request_coding"]:
            sent = codings.decode(exchange["request_coding"], sent, 1 << 24)
        if exchange["method"] == "POST" and exchange["status"] == 200 and b"replay" in sent:
            bodies.append(bytes(exchange["body"]))
    return bodies


class Variant:
    def __init__(self, name: str, url: str, make_client) -> None:
        self.name, self.url, self.make_client = name, url, make_client
        self.pid = server_pid(url)
        self.recorder = RecordingTransport()
        self.server_cpu: list[float] = []
        self.client_cpu: list[float] = []
        self.bytes: list[float] = []
        self.bodies: list[bytes] = []

    async def open(self, stack: contextlib.AsyncExitStack) -> None:
        http = await stack.enter_async_context(httpx2.AsyncClient(transport=self.recorder, timeout=httpx2.Timeout(30, read=300)))
        read, write = await stack.enter_async_context(self.make_client(self.url, http))
        self.session = await stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()

    async def replay(self, corpus: str) -> None:
        self.recorder.exchanges.clear()
        start_server, start_client = cpu_seconds(self.pid), time.process_time()
        for index, expected in enumerate(RESULTS[corpus]):
            result = await self.session.call_tool("replay", {"corpus": corpus, "index": index})
            assert len(result.content) == len(expected["content"]), f"{self.name}: replay {index} changed"
        self.client_cpu.append(time.process_time() - start_client)
        self.server_cpu.append(cpu_seconds(self.pid) - start_server)
        self.bodies = _replay_bodies(self.recorder)
        assert len(self.bodies) == len(RESULTS[corpus]), f"{self.name}: {len(self.bodies)} replies recorded"
        self.bytes.append(sum(len(body) for body in self.bodies))


def gzip6(bodies: list[bytes]) -> tuple[int, float]:
    """The bodies' bytes gzip'd at level 6, one by one as a proxy codes each reply, and the CPU that took."""
    start = time.process_time()
    size = sum(len(gzip.compress(body, 6)) for body in bodies)
    return size, time.process_time() - start


def coder_table(corpus: str, bodies: list[bytes], repeats: int) -> list[str]:
    """Each coder alone on the session's JSON reply bodies: bytes and CPU against gzip 6 (the median of `repeats`)."""
    plain = sum(len(body) for body in bodies)

    def timed(code) -> tuple[int, float]:
        times, size = [], 0
        for _ in range(repeats):
            start = time.process_time()
            size = sum(len(code(body)) for body in bodies)
            times.append(time.process_time() - start)
        return size, statistics.median(times)

    base_size, base_cpu = timed(lambda body: gzip.compress(body, 6))
    lines = []
    for name, code in [("gzip 6 (baseline)", None)] + [
        (f"{coding} (the server's levels)", lambda body, c=coding: codings.encode(c, body)) for coding in codings.CODINGS
    ] + [("mcp-dict-v1 from 96 B to 4 KiB, zstd above", _dictionary_or_zstd)]:
        size, cpu = timed(code) if code is not None else (base_size, base_cpu)
        lines.append(
            f"| {corpus} | {name} | {plain / 1024:,.0f} KiB | {size / 1024:,.1f} KiB | {size / base_size:.2f}x"
            f" | {cpu * 1e3:.2f} ms | {cpu / base_cpu:.2f}x |"
        )
    return lines


def _dictionary_or_zstd(body: bytes) -> bytes:
    """What the server sends a client that names mcp-dict-v1 (SPEC 10.5), bar the eighth-saved check: the dictionary
    coding in its range, zstd (the best coding here) from 256 bytes above it, the body as it is under 96 bytes."""
    if mcp_dictionary.in_dictionary_range(len(body)):
        return mcp_dictionary.encode_with_dictionary(body)
    return codings.encode(codings.CODINGS[0], body) if len(body) >= codings.REPLY_MIN_BYTES else body


async def measure(corpus: str, off_url: str, on_url: str, rounds: int) -> tuple[list[str], list[bytes]]:
    def stock(url, http):
        return sdk_streamable_http_client(url, http_client=http, max_sse_event_size=None)

    def ours(url, http):
        return streamable_http_client(url, http_client=http, max_sse_event_size=None)

    json_off = Variant("JSON", off_url, stock)
    stock_on = Variant("stock client, coded", on_url, stock)
    ours_on = Variant("our client, coded", on_url, ours)
    ours_off = Variant("our client, uncoded", off_url, ours)
    variants = [json_off, stock_on, ours_on, ours_off]
    gzip_bytes: list[float] = []
    baseline_cpu: list[float] = []
    async with contextlib.AsyncExitStack() as stack:
        for variant in variants:
            await variant.open(stack)
            await variant.replay(corpus)  # warm-up, not measured
            variant.server_cpu.clear(), variant.client_cpu.clear(), variant.bytes.clear()
        for round_index in range(rounds):
            for variant in variants if round_index % 2 == 0 else variants[::-1]:
                await variant.replay(corpus)
            size, cpu = gzip6(json_off.bodies)
            gzip_bytes.append(size)
            baseline_cpu.append(json_off.server_cpu[-1] + cpu)
    json_bytes = statistics.median(json_off.bytes)
    lines = [
        f"| {corpus} | JSON, coding off (stock client) | {json_bytes / 1024:,.1f} KiB | - "
        f"| {statistics.median(json_off.server_cpu) * 1e3:.1f} ms | - |",
        f"| {corpus} | JSON + gzip 6 (baseline: server + gzip) | {statistics.median(gzip_bytes) / 1024:,.1f} KiB | 1.00x "
        f"| {statistics.median(baseline_cpu) * 1e3:.1f} ms | 1.00x |",
    ]
    for variant in (stock_on, ours_on):
        lines.append(
            f"| {corpus} | {variant.name} ({_codings_seen(variant)}) | {statistics.median(variant.bytes) / 1024:,.1f} KiB"
            f" | {summary(variant.bytes, gzip_bytes)} | {statistics.median(variant.server_cpu) * 1e3:.1f} ms"
            f" | {summary(variant.server_cpu, baseline_cpu)} |"
        )
    client = (
        f"{corpus}: our client's CPU per session, coded {statistics.median(ours_on.client_cpu) * 1e3:.1f} ms against"
        f" uncoded {statistics.median(ours_off.client_cpu) * 1e3:.1f} ms: {summary(ours_on.client_cpu, ours_off.client_cpu)}"
    )
    return [*lines, "", client], json_off.bodies


def _codings_seen(variant: Variant) -> str:
    seen = sorted({e["coding"] or "none" for e in variant.recorder.exchanges if e["method"] == "POST" and e["status"] == 200})
    return "/".join(seen)


def main() -> None:
    logging.disable(logging.INFO)  # the HTTP client's per-request lines
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", default="fs-session,everything-session")
    parser.add_argument("--favor", choices=["bytes", "cpu"], default="bytes", help="the coding server's CompressionPolicy.favor")
    args = parser.parse_args()
    app = HERE / "replay_app.py"
    off_port, on_port = free_port(), free_port()
    env = {"PYTHONPATH": str(HERE.parent / "src")}
    with running([sys.executable, str(app), str(off_port), "false"], off_port, env) as off_url, running(
        [sys.executable, str(app), str(on_port), "true", args.favor], on_port, env
    ) as on_url:
        print(f"Python content codings on the recorded corpus (codings here: {', '.join(codings.CODINGS)}; favor={args.favor}), {args.rounds} rounds")
        print("| corpus | replies | bytes | bytes / JSON+gzip 6 | server CPU per session | CPU / (server + gzip 6) |")
        print("|---|---|---|---|---|---|")
        tables = []
        for corpus in args.corpus.split(","):
            lines, bodies = anyio.run(measure, corpus, off_url, on_url, args.rounds)
            print("\n".join(lines))
            tables.extend(coder_table(corpus, bodies, max(3, args.rounds)))
    print("\nThe coders alone on the same JSON reply bodies (one call per reply, this process):")
    print("| corpus | coder | plain | coded | bytes / gzip 6 | CPU | CPU / gzip 6 |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(tables))


if __name__ == "__main__":
    main()
