"""The shared probe set (fixtures/probes/, issue 39 item 7) against the Python server: the same corpus and the same
runner (scripts/probes.mjs, Node) the TypeScript media server is held to in
packages/filesystem-media-server/test/probes.test.ts, pointed at tests/servers/probe_server.py on stdio_server and
on streamable_http_app under uvicorn. Every case must pass but those fixtures/probes/expected-failures.json lists for
the server, and every listed case must still fail: a case fixed here fails this test until its entry is removed, so
the list only shrinks. One runner for both languages, so a promise kept by one server and broken by the other
cannot hide behind two probes that differ."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from wiretap import NODE, ROOT

RUNNER = ROOT / "scripts" / "probes.mjs"


@pytest.mark.parametrize("server", ["py-stdio", "py-http"])
def test_the_shared_probe_set_passes_but_the_expected_failures(server):
    env = {**os.environ, "MCP_MSGPACK_PYTHON": sys.executable}
    done = subprocess.run([NODE, str(RUNNER), "--server", server], capture_output=True, text=True, timeout=110, cwd=ROOT, env=env)
    report = done.stdout + done.stderr
    assert "cases" in done.stdout, report
    assert done.returncode == 0, report
