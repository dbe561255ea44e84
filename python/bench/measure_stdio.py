"""Server CPU per call over stdio, side by side in interleaved rounds (ratios): the stdio twin of measure_http.py.

    python bench/measure_stdio.py [--rounds 7] [--calls 10] [--only small,image-b64]

The HTTP bench's Python MCPServer (bench/stdio_tool_server.py: a small result, 64 KB of text, a 50 KB object,
a 5 MiB image) runs as a child process on `mcp_msgpack.stdio_server` (defaults) and, as the baseline, on the
SDK's `mcp.server.stdio.stdio_server`, called by `mcp_msgpack.stdio_client` on its defaults (native bytes for
the image) and by the SDK's `stdio_client` (JSON). Each variant has its own child, spawned once; server CPU is
that child's CPU time (its process CPU clock, Linux) over each batch of calls, after one warm-up call. Each
round runs every variant once, alternating their order; the ratio is the median of the rounds' ratios, with the
range.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from measure_http import any_result, image_check, run_pairs, summary, write_image  # noqa: E402

from mcp_msgpack import call_tool_native, stdio_client  # noqa: E402


def process_cpu_seconds(pid: int) -> float:
    """CPU time of a whole process, ended threads included, in nanoseconds' resolution: the process CPU clock of
    another pid (Linux clock_getcpuclockid: ~pid << 3 | CPUCLOCK_SCHED). Summing live threads' schedstat, as
    measure_http.py does, goes backwards when the SDK's stdio_server ends an idle worker thread mid-batch."""
    return time.clock_gettime(((~pid) << 3) | 2)


class StdioVariant:
    """One client session on its own server child; the measures of its batches."""

    def __init__(self, name: str, folder: Path, image: Path, sdk_server: bool, make_client, call, check) -> None:
        self.name, self.make_client, self.call_tool, self.check = name, make_client, call, check
        self.pid_file = folder / f"{name}.pid"
        argv = [str(HERE / "stdio_tool_server.py"), str(image), str(self.pid_file)] + (["--sdk"] if sdk_server else [])
        src = str(HERE.parent / "src")
        self.params = StdioServerParameters(
            command=sys.executable, args=argv, env={"PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
        )
        self.cpu: list[float] = []
        self.wall: list[float] = []

    async def open(self, stack: contextlib.AsyncExitStack) -> None:
        read, write = await stack.enter_async_context(self.make_client(self.params))
        self.session = await stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        self.pid = int(self.pid_file.read_text())
        await self.call()  # warm-up, not measured

    async def call(self) -> None:
        self.check(await self.call_tool(self.session))

    async def batch(self, calls: int) -> None:
        start_cpu, start = process_cpu_seconds(self.pid), time.perf_counter()
        for _ in range(calls):
            await self.call()
        self.wall.append((time.perf_counter() - start) / calls)
        self.cpu.append((process_cpu_seconds(self.pid) - start_cpu) / calls)


def ratio_line(label: str, candidate: StdioVariant, baseline: StdioVariant, target: str) -> str:
    return (
        f"| {label} | {statistics.median(candidate.cpu) * 1e3:.1f} ms | {statistics.median(baseline.cpu) * 1e3:.1f} ms"
        f" | {summary(candidate.cpu, baseline.cpu)} | {summary(candidate.wall, baseline.wall)} | {target} |"
    )


HEADER = (
    "| scenario | ours CPU/call | SDK CPU/call | server CPU, ours / SDK | client wall | target |\n"
    "|---|---|---|---|---|---|"
)


def ours(native: bool):
    return lambda params: stdio_client(params, native_bytes=native)


def calling(tool: str, native: bool = False):
    if native:
        return lambda session: call_tool_native(session, tool, {})
    return lambda session: session.call_tool(tool, {})


def native_image_check(data: bytes):
    def check(result) -> None:
        assert result.content[0].data == data, "image changed"

    return check


async def measure(folder: Path, image: Path, data: bytes, rounds: int, calls: int, only: str | None) -> list[str]:
    def variant(name: str, sdk_server: bool, make_client, call, check) -> StdioVariant:
        return StdioVariant(name, folder, image, sdk_server, make_client, call, check)

    pairs = []
    for tool, label in (("small", "small result"), ("text", "64 KB text"), ("records", "50 KB object")):
        pairs.append((
            f"{label}: our stdio_server + stdio_client (defaults) / the SDK's (JSON)",
            variant(f"ours-{tool}", False, ours(False), calling(tool), any_result),
            variant(f"sdk-{tool}", True, sdk_stdio_client, calling(tool), any_result),
            "<= 1.05x",
        ))
    pairs.append((
        "5 MiB image: ours, `native_image` tool, native-bytes client (`call_tool_native`) / the SDK's, base64 tool (JSON)",
        variant("ours-image", False, ours(True), calling("read_image_native", native=True), native_image_check(data)),
        variant("sdk-image", True, sdk_stdio_client, calling("read_image"), image_check(data)),
        "<= 0.5x",
    ))
    pairs.append((
        "5 MiB image: ours, base64 tool (the SDK's usual), native-bytes client / the SDK's, same tool (JSON)",
        variant("ours-image-b64", False, ours(True), calling("read_image", native=True), native_image_check(data)),
        variant("sdk-image-b64", True, sdk_stdio_client, calling("read_image"), image_check(data)),
        "<= 0.5x",
    ))
    if only:
        pairs = [pair for pair in pairs if any(word in pair[1].name for word in only.split(","))]
    return await run_pairs(pairs, rounds, calls, ratio_line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10, help="calls per variant per round")
    parser.add_argument("--only", help="scenarios whose variant name holds one of these words (comma-separated: small,text,records,image,image-b64)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        image, data = write_image(Path(folder))
        lines = anyio.run(measure, Path(folder), image, data, options.rounds, options.calls, options.only)
    print(f"rounds {options.rounds} x {options.calls} calls per variant; medians of per-round ratios (range)")
    print("\n".join([HEADER, *lines]))


if __name__ == "__main__":
    main()
