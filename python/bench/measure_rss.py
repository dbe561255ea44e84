"""Whole-process memory of the Python HTTP server on hostile bodies (issue 39 item 4): for each shape of
tests/hostile.py at the edge of what the receiver accepts, a fresh server (tests/servers/http_media_app.py on
uvicorn), its peak RSS reset (/proc/PID/clear_refs), one POST of the body, then peak RSS growth over the body
size, and the RSS left 2 s later over the idle RSS.

    python bench/measure_rss.py [--sizes 1,4] [--shapes nil,negint,...]   (from python/)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx2

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


def measure(shape: str, size: int, image: Path) -> tuple[float, float, int]:
    body = payload(shape, _largest_accepted(shape, size), size)
    headers = {"accept": "application/msgpack, application/vnd.mcp-msgpack.stream", "content-type": "application/msgpack"}
    with python_server(image) as url:
        port = int(url.split(":")[2].split("/")[0])
        pid = _server_pid(port)
        httpx2.post(url, content=b"\x80", headers=headers, timeout=60)  # warm: the code paths loaded
        time.sleep(0.5)
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
        idle = _status(pid)["VmRSS"]
        response = httpx2.post(url, content=body, headers=headers, timeout=120)
        peak = _status(pid)["VmHWM"]
        time.sleep(2)
        after = _status(pid)["VmRSS"]
    return (peak - idle) / len(body), (after - idle) / len(body), response.status_code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1,4", help="MiB, comma-separated")
    parser.add_argument("--shapes", default=",".join(ALL))
    args = parser.parse_args()
    image, _ = write_image(Path(tempfile.mkdtemp()))
    print("shape, MiB: peak RSS growth / body, RSS left after 2 s / body, status")
    for size in (int(s) for s in args.sizes.split(",")):
        for shape in args.shapes.split(","):
            grown, left, status = measure(shape, size * MIB, image)
            print(f"{shape}, {size}: {grown:.1f}x, {left:.1f}x, {status}", flush=True)


if __name__ == "__main__":
    main()
