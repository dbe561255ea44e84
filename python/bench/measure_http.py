"""Server CPU per call and wire bytes over Streamable HTTP, side by side in interleaved rounds (ratios).

    python bench/measure_http.py [--rounds 7] [--calls 10] [--part ts|python|both]
    python bench/measure_http.py --part ab --before DIR   # DIR: another copy of python/src (e.g. git archive)

Part "ts": our Python client against the TS media server (packages/filesystem-media-server --http, built), a
5 MiB `read_media_file`: MessagePack with native bytes against the same client on JSON (`wire='json'`) and
against the SDK's own client, same server process. It runs on every SDK line (the client the package picks:
client/streamable_http_httpx.py before mcp 2.3); parts "python" and "ab" need mcp 2.3 (the server app). Part "python": a Python MCPServer on this package's app (default: MessagePack to MessagePack
clients) against the same server on the SDK's own app (`streamable_http_app()`, JSON), each called by its own
kind of client (ours, with native bytes; the SDK's), for a small result, 64 KB of text, a 50 KB object and the
5 MiB image. Part "ab": this tree's app against the app from the sources in `--before`, both called by this
tree's client (native bytes) for the small result, 64 KB of text and the 50 KB object, and by the SDK's JSON
client for the small result and the 50 KB object. Server CPU is the CPU time of the server process's threads (/proc schedstat, Linux) over each batch of calls;
wire bytes are the reply bodies as received. Each round runs every variant once, alternating their order;
the ratio is the median of the rounds' ratios, with the range.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import inspect
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client as sdk_streamable_http_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from http_peers import RecordingTransport, httpx2, media_server, python_server, write_image  # noqa: E402

# The client the package picks for the installed SDK: part "ts" also runs on mcp 1.x and 2.0-2.2
# (client/streamable_http_httpx.py there); parts "python" and "ab" need the 2.3 server app.
from mcp_msgpack import streamable_http_client  # noqa: E402

def cpu_seconds(pid: int) -> float:
    """CPU time of a process's threads, in nanoseconds' resolution (/proc/PID/task/*/schedstat, Linux): clock
    ticks (/proc/PID/stat) are 10 ms, as coarse as a small call. Threads that ended are not counted."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError):
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
    return total / 1e9


def server_pid(port_url: str) -> int:
    """The pid listening on the URL's port (the server we started), from /proc/net/tcp and fds."""
    port = int(port_url.rsplit(":", 1)[1].split("/")[0])
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for line in Path(table).read_text().splitlines()[1:]:
                parts = line.split()
                if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":
                    inodes.add(parts[9])
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return int(pid)
    raise RuntimeError(f"no process listens on {port}")


class Variant:
    def __init__(self, name: str, url: str, make_client, tool: str, arguments: dict, check) -> None:
        self.name, self.url, self.make_client = name, url, make_client
        self.tool, self.arguments, self.check = tool, arguments, check
        self.pid = server_pid(url)
        self.recorder = RecordingTransport()
        self.cpu: list[float] = []
        self.bytes: list[float] = []
        self.wall: list[float] = []

    async def open(self, stack: contextlib.AsyncExitStack) -> None:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(transport=self.recorder, timeout=httpx2.Timeout(30, read=300))
        )
        streams = await stack.enter_async_context(self.make_client(self.url, http))  # 3 streams on mcp 1.x
        self.session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await self.session.initialize()
        await self.call()  # warm-up, not measured

    async def call(self) -> None:
        result = await self.session.call_tool(self.tool, self.arguments)
        self.check(result)

    async def batch(self, calls: int) -> None:
        self.recorder.exchanges.clear()
        start_cpu, start = cpu_seconds(self.pid), time.perf_counter()
        for _ in range(calls):
            await self.call()
        self.wall.append((time.perf_counter() - start) / calls)
        self.cpu.append((cpu_seconds(self.pid) - start_cpu) / calls)
        self.bytes.append(sum(len(e["body"]) for e in self.recorder.exchanges if e["method"] == "POST") / calls)


def summary(a: list[float], b: list[float]) -> str:
    """The median of the per-round ratios a/b, with their range."""
    ratios = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    if not ratios:
        return "n/a (baseline 0)"
    return f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"


def ratio_line(label: str, candidate: Variant, baseline: Variant, target: str) -> str:
    return (
        f"| {label} | {statistics.median(candidate.bytes) / 1024:,.0f} KiB"
        f" | {statistics.median(candidate.cpu) * 1e3:.1f} ms | {statistics.median(baseline.cpu) * 1e3:.1f} ms"
        f" | {summary(candidate.cpu, baseline.cpu)} | {summary(candidate.bytes, baseline.bytes)}"
        f" | {summary(candidate.wall, baseline.wall)} | {target} |"
    )


async def run_pairs(pairs: list[tuple[str, Variant, Variant, str]], rounds: int, calls: int, line=ratio_line) -> list[str]:
    async with contextlib.AsyncExitStack() as stack:
        for _, candidate, baseline, _ in pairs:
            await candidate.open(stack)
            await baseline.open(stack)
        for round_index in range(rounds):
            for _, candidate, baseline, _ in pairs:
                order = (candidate, baseline) if round_index % 2 == 0 else (baseline, candidate)
                for variant in order:
                    await variant.batch(calls)
        return [line(label, c, b, target) for label, c, b, target in pairs]


def ours(native: bool, wire: str = "auto"):
    return lambda url, http: streamable_http_client(url, http_client=http, native_bytes=native, wire=wire, max_sse_event_size=None)


def sdk(url, http):
    # max_sse_event_size: mcp 2.x's SSE reader has a 1 MiB default; 1.x's has no limit (and no such argument).
    unlimited = {"max_sse_event_size": None} if "max_sse_event_size" in inspect.signature(sdk_streamable_http_client).parameters else {}
    return sdk_streamable_http_client(url, http_client=http, **unlimited)


def image_check(data: bytes):
    def check(result) -> None:
        assert base64.b64decode(result.content[0].data) == data, "image changed"

    return check


def any_result(result) -> None:
    assert not result.is_error, result


HEADER = (
    "| scenario | candidate reply | candidate CPU/call | baseline CPU/call | server CPU | reply bytes | client wall"
    " | target |\n|---|---|---|---|---|---|---|---|"
)


async def part_ts(folder: Path, image: Path, data: bytes, rounds: int, calls: int) -> list[str]:
    with media_server(folder) as url:
        args = {"path": str(image)}
        pair = (
            "TS media server, 5 MiB read_media_file: native bytes / JSON",
            Variant("native", url, ours(True), "read_media_file", args, image_check(data)),
            Variant("json", url, ours(False, "json"), "read_media_file", args, image_check(data)),
            "CPU <= 0.25x, bytes 0.75x",
        )
        stock = (
            "TS media server, 5 MiB read_media_file: native bytes / the SDK's own client (JSON)",
            Variant("native-vs-sdk", url, ours(True), "read_media_file", args, image_check(data)),
            Variant("sdk", url, sdk, "read_media_file", args, image_check(data)),
            "bytes 0.75x",
        )
        return await run_pairs([pair, stock], rounds, calls)


async def part_python(image: Path, data: bytes, rounds: int, calls: int) -> list[str]:
    with python_server(image) as our_url, python_server(image, "--json-sdk") as sdk_url:
        pairs = []
        for tool, label, target in (
            ("small", "small result", "<= 1.05x"),
            ("text", "64 KB text", "<= 1.05x"),
            ("records", "50 KB object", "<= 1.05x"),
        ):
            pairs.append((
                f"Python server, {label}: our app (MessagePack) / SDK app (JSON)",
                Variant(f"ours-{tool}", our_url, ours(True), tool, {}, any_result),
                Variant(f"sdk-{tool}", sdk_url, sdk, tool, {}, any_result),
                target,
            ))
        pairs.append((
            "Python server, 5 MiB image: our app (native bytes) / SDK app (JSON)",
            Variant("ours-image", our_url, ours(True), "read_image", {}, image_check(data)),
            Variant("sdk-image", sdk_url, sdk, "read_image", {}, image_check(data)),
            "<= 0.5x",
        ))
        return await run_pairs(pairs, rounds, calls)


async def part_ab(image: Path, data: bytes, before: Path, rounds: int, calls: int) -> list[str]:
    with python_server(image) as after_url, python_server(image, src_dir=before) as before_url:
        pairs = [
            (
                f"Python server, {label}: this tree's app / the app before",
                Variant(f"after-{tool}", after_url, ours(True), tool, {}, any_result),
                Variant(f"before-{tool}", before_url, ours(True), tool, {}, any_result),
                "",
            )
            for tool, label in (("small", "small result"), ("text", "64 KB text"), ("records", "50 KB object"))
        ] + [
            (
                f"Python server, {label}, the SDK's JSON client: this tree's app / the app before",
                Variant(f"after-sdk-{tool}", after_url, sdk, tool, {}, any_result),
                Variant(f"before-sdk-{tool}", before_url, sdk, tool, {}, any_result),
                "",
            )
            for tool, label in (("small", "small result"), ("records", "50 KB object"))
        ] + [
            (
                "Python server, 5 MiB image, native bytes: this tree's app / the app before",
                Variant("after-image", after_url, ours(True), "read_image", {}, image_check(data)),
                Variant("before-image", before_url, ours(True), "read_image", {}, image_check(data)),
                "",
            )
        ]
        return await run_pairs(pairs, rounds, calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10, help="calls per variant per round")
    parser.add_argument("--part", choices=("ts", "python", "both", "ab"), default="both")
    parser.add_argument("--before", type=Path, help="part ab: the sources (python/src) of the app before")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        image, data = write_image(Path(folder))
        lines = [HEADER]
        if options.part in ("ts", "both"):
            lines += anyio.run(part_ts, Path(folder), image, data, options.rounds, options.calls)
        if options.part in ("python", "both"):
            lines += anyio.run(part_python, image, data, options.rounds, options.calls)
        if options.part == "ab":
            lines += anyio.run(part_ab, image, data, options.before.resolve(), options.rounds, options.calls)
    print(f"rounds {options.rounds} x {options.calls} calls per variant; medians of per-round ratios (range)")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
