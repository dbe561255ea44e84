"""Helpers for the interop tests: a recorded stdio stream read back as messages, and the peers' commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcp_msgpack.wire import FRAME, ReceiveLimits, StreamReader, decode_value
from mcp_msgpack.wire.reader import MIXED

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PYTHON = sys.executable
TAP = str(HERE / "servers" / "tap.py")
MEDIA_SERVER = str(HERE / "servers" / "media_server.py")
TS_CLIENT = str(HERE / "ts" / "client.mjs")
TS_MEDIA_SERVER = str(ROOT / "packages" / "filesystem-media-server" / "bin" / "mcp-filesystem-media-server.js")
NODE = shutil.which("node") or "node"


def recorded(path: str) -> list[tuple[str, object]]:
    """The messages of a recorded stream, each ("line", json) or ("frame", value with bins as bytes)."""
    reader = StreamReader(MIXED, max_bytes=1 << 30)
    reader.feed(Path(path).read_bytes())
    out = []
    while (item := reader.next()) is not None:
        kind, data = item
        if kind == FRAME:
            out.append(("frame", decode_value(data, ReceiveLimits(allow_bin=True, max_frame_bytes=1 << 30))))
        else:
            out.append(("line", json.loads(data)))
    reader.close()
    return out


def has_bin(value: object) -> bool:
    if isinstance(value, bytes):
        return True
    if isinstance(value, dict):
        return any(has_bin(v) for v in value.values())
    if isinstance(value, list):
        return any(has_bin(v) for v in value)
    return False


def ts_client(options: dict, timeout: float = 90) -> dict:
    """Runs the TypeScript client (tests/ts/client.mjs) and returns what it printed."""
    env = dict(os.environ)
    done = subprocess.run([NODE, TS_CLIENT, json.dumps(options)], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"no output from the TS client: {done.stderr[-2000:]}"
    result = json.loads(lines[-1])
    assert "error" not in result, result["error"] + done.stderr[-2000:]
    return result
