"""Whole-process memory of the Python HTTP server on hostile bodies (issue 39 item 4): for each shape of
tests/hostile.py at the edge of what the receiver accepts, a fresh server (tests/servers/http_media_app.py on
uvicorn), its peak RSS reset (/proc/PID/clear_refs), one POST of the body, then peak RSS growth over the body
size, and the RSS left 2 s later over the idle RSS. With `--concurrent K`, K copies of each body are posted at
once as well, and their peak RSS growth is given as a multiple of the one body's (the shared decode allowance,
server/decode_budget.py), with the RSS left 2 s later.

With `--stdio`, the server is tests/servers/media_server.py on stdio (msgpack-v1 frames): the body goes as
one frame, followed by a ping whose answer says it was read.

    python bench/measure_rss.py [--sizes 1,4] [--shapes nil,negint,...] [--concurrent 8] [--stdio]   (from python/)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
import tempfile
import time
from pathlib import Path

import httpx2
import msgpack

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from hostile import ALL, payload  # noqa: E402
from http_peers import python_server, write_image  # noqa: E402
from test_hostile import _largest_accepted  # noqa: E402

MIB = 1024 * 1024


def _status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


def _server_pid(port: int) -> int:
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(part.endswith(b"http_media_app.py") for part in cmd) and str(port).encode() in cmd:
                return int(proc.name)
    raise RuntimeError("server process not found")


HEADERS = {"accept": "application/msgpack, application/vnd.mcp-msgpack.stream", "content-type": "application/msgpack"}


def _post_all(url: str, body: bytes, copies: int) -> list[int]:
    """`copies` POSTs of `body` at once, their statuses."""
    with ThreadPoolExecutor(copies) as pool:
        return list(pool.map(lambda _: httpx2.post(url, content=body, headers=HEADERS, timeout=300).status_code, range(copies)))


def measure(shape: str, size: int, image: Path, copies: int = 0) -> dict[str, object]:
    """Peak RSS growth over the body for one POST (`one`), the RSS left 2 s later over the body (`left`), its
    status; with `copies`, the peak growth of that many at once over the one's (`many`) and what they left."""
    body = payload(shape, _largest_accepted(shape, size), size)
    with python_server(image) as url:
        port = int(url.split(":")[2].split("/")[0])
        pid = _server_pid(port)
        httpx2.post(url, content=b"\x80", headers=HEADERS, timeout=60)  # warm: the code paths loaded
        time.sleep(0.5)

        def grown(send: object) -> tuple[int, int, object]:
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
            idle = _status(pid)["VmRSS"]
            result = send()  # type: ignore[operator]
            peak = _status(pid)["VmHWM"]
            time.sleep(2)
            return peak - idle, _status(pid)["VmRSS"] - idle, result

        one, left, status = grown(lambda: httpx2.post(url, content=body, headers=HEADERS, timeout=120).status_code)
        row: dict[str, object] = {"one": one / len(body), "left": left / len(body), "status": status}
        if copies:
            many, many_left, statuses = grown(lambda: _post_all(url, body, copies))
            row.update(many=many / one, many_left=many_left / len(body), statuses=statuses)
    return row


def _frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


def measure_stdio(shape: str, size: int) -> dict[str, object]:
    """Peak RSS growth over the body of a stdio server that reads it as one frame (`one`), the RSS left 2 s later."""
    body = payload(shape, _largest_accepted(shape, size), size)
    ping = _frame(msgpack.packb({"jsonrpc": "2.0", "id": "ping", "method": "ping"}))
    server = HERE.parent / "tests" / "servers" / "media_server.py"
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    process = subprocess.Popen(
        [sys.executable, str(server), "--wire", "msgpack"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None

    def answered(frame: bytes) -> None:
        """Writes `frame` and a ping, then reads frames until the ping's answer."""
        process.stdin.write(frame + ping)  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        while True:
            head = process.stdout.read(4)  # type: ignore[union-attr]
            if len(head) < 4:
                raise RuntimeError("the server closed its stdout")
            message = msgpack.unpackb(process.stdout.read(int.from_bytes(head, "big")))  # type: ignore[union-attr]
            if isinstance(message, dict) and message.get("id") == "ping":
                return

    try:
        answered(b"")  # warm: the code paths loaded
        time.sleep(0.5)
        Path(f"/proc/{process.pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
        idle = _status(process.pid)["VmRSS"]
        answered(_frame(body))
        peak = _status(process.pid)["VmHWM"]
        time.sleep(2)
        left = _status(process.pid)["VmRSS"] - idle
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=10)
    return {"one": (peak - idle) / len(body), "left": left / len(body), "status": "read"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,4", help="MiB, comma-separated")
    parser.add_argument("--shapes", default=",".join(ALL))
    parser.add_argument("--concurrent", type=int, default=0, help="also post this many copies at once")
    parser.add_argument("--stdio", action="store_true", help="a stdio server, the body as one frame")
    args = parser.parse_args()
    image, _ = write_image(Path(tempfile.mkdtemp()))
    print("shape, MiB: peak RSS growth / body, RSS left after 2 s / body, status", end="")
    print(f"; {args.concurrent} at once: peak growth / one's, RSS left after 2 s / body, statuses" if args.concurrent else "")
    for size in (int(s) for s in args.sizes.split(",")):
        for shape in args.shapes.split(","):
            row = measure_stdio(shape, size * MIB) if args.stdio else measure(shape, size * MIB, image, args.concurrent)
            line = f"{shape}, {size}: {row['one']:.1f}x, {row['left']:.1f}x, {row['status']}"
            if args.concurrent:
                line += f"; {row['many']:.2f}x one, {row['many_left']:.1f}x, {row['statuses']}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
