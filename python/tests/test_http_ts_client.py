"""TS clients against a Python MCPServer on this package's ASGI app: ours (mcp-msgpack-transport, built) on
MessagePack with native bytes, and the TS SDK's own JSON client, which must see nothing but JSON."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from http_peers import ROOT, python_server, write_image

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("node") is None, reason="needs Node"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if not (ROOT / "packages" / "transport-msgpack" / "dist").exists():
        pytest.fail("build the TS packages first (npm run build)")
    path, data = write_image(tmp_path_factory.mktemp("ts"))
    with python_server(path) as url:
        yield url, data


def _run(url: str, mode: str) -> dict:
    script = Path(__file__).parent / "ts" / "http_client.mjs"
    out = subprocess.run(["node", str(script), url, mode], capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_our_ts_client_reads_native_bytes(served):
    url, data = served
    report = _run(url, "msgpack")
    assert {"echo", "read_image"} <= set(report["tools"]) and report["echoed"] == "héllo"
    assert report["wire"] == "msgpack" and report["native"]
    # Held one-body replies chosen per reply (SPEC 9.6, 9.6.2): MessagePack for the confirming initialize
    # result and the image, JSON with Mcp-Msgpack-Wire for the small ones, and this client stays on MessagePack.
    assert {"application/msgpack", "application/json"} <= set(report["contentTypes"])
    assert report["length"] == len(data) and report["sha256"] == hashlib.sha256(data).hexdigest()


def test_the_ts_sdk_json_client_gets_json(served):
    url, data = served
    report = _run(url, "sdk")
    assert {"echo", "read_image"} <= set(report["tools"]) and report["echoed"] == "héllo"
    assert not report["native"]
    assert all(t is None or t.startswith(("application/json", "text/event-stream")) for t in report["contentTypes"])
    assert report["sha256"] == hashlib.sha256(data).hexdigest()


def test_an_sdk_v2_client_on_2026_07_28_reads_native_bytes(served):
    url, data = served
    report = _run(url, "modern")
    assert report["protocolVersion"] == "2026-07-28" and report["wire"] == "msgpack"
    assert report["native"]  # advertised in server/discover on MessagePack (SPEC 8.1 rule 6)
    # One body per reply (SPEC 9.6.2), chosen per reply (9.6): server/discover advertises native bytes, so
    # MessagePack; the small ones JSON (with Mcp-Msgpack-Wire, which keeps this client on MessagePack).
    assert report["contentTypes"] == ["application/msgpack", "application/json"]
    assert report["length"] == len(data) and report["sha256"] == hashlib.sha256(data).hexdigest()
