"""The measurement commands of python/bench (the README's "Costs" and "What it costs and saves") run, each in
its smallest mode, so that they keep working as the package changes. Their figures are not checked here: they
are read from a full run on a quiet machine (README), never asserted in a test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"

COMMANDS = {
    # command line after the script: a line each run must print
    "measure_edges.py --rounds 1": "native-bytes edge, per MiB",
    "measure_codec.py --rounds 1": "guarded decode, process CPU time",
    "measure_codec.py --policy --rounds 1": "embedding 1536 floats",
    "measure_stdio.py --rounds 1 --calls 1 --only small": "small result",
    "measure_http.py --rounds 1 --calls 1 --part both": "Python server, 5 MiB image",
    "measure_rss.py --sizes 1 --shapes nil": "nil, 1:",
    "measure_coding.py --rounds 1 --corpus everything-session": "our client's CPU per session",
    "measure_heap.py": "accept/heap-floor",
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_bench_command_runs(command):
    script, *args = command.split()
    done = subprocess.run([sys.executable, str(BENCH / script), *args], cwd=BENCH, capture_output=True, text=True, timeout=110)
    assert done.returncode == 0, done.stderr[-2000:]
    assert COMMANDS[command] in done.stdout, done.stdout[-2000:]
