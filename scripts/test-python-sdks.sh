#!/usr/bin/env bash
# The Python package on the other SDK lines it supports (python/pyproject.toml: mcp>=1.24,<3): the oldest and
# newest 1.x and the oldest 2.x (the newest 2.x is scripts/test-python.sh's own run, python/requirements-test.txt,
# run here again on the newest CPython, below),
# each in its own virtualenv under .cache/ from python/requirements-sdk-<version>.txt (exact pins), with the
# package installed from the checkout. The oldest of each line runs on Python 3.10 (the package's floor) where
# pyenv has it, else on python3, said so.
#
# A subset: the tests whose code differs by SDK line (the stdio transports both ways with the SDK's client and
# server sessions, the TypeScript client on a Python server, mcp-msgpack-run on 1.x FastMCP / 2.x MCPServer /
# low-level servers, the models at the edge, the package layout; the Streamable HTTP client of these lines,
# client/streamable_http_httpx.py, against the TS media server and the TS SDK's stock server;
# langchain-mcp-adapters and mcp-use (stdio and HTTP), which need mcp 1.x, on the 1.30.0 line; FastMCP's `Client` on
# our HTTP transport, fastmcp 2.14.7 there and 4.1.6 on 2.3.0). The codec's own
# tests (golden, bulk, budget, hostile shapes) touch no SDK code and run
# once, in test-python.sh; but the heap bounds (16x, traced by tracemalloc) depend on the CPython version's
# object sizes, so they run once more on the first line on Python 3.10, the package's floor (~20 s). At 1 MiB
# the worst shape, keyorders, builds 14.7x on 3.10.13 against 11.8x on 3.11.7: 3.11 stores a dict of str keys
# in 16-byte entries, 3.10 in 24 (hash, key, value; a 1,000-key dict is 36,960 bytes against 26,032). It
# built 18.6x on 3.10 while the heap bound was heap_base + 12 bytes a byte; issue 39 made it the larger of
# the two (wire/limits.py), 12 MiB at 1 MiB. The HTTP server app runs on every 2.x: on 2.0.0
# its tests run too (HTTP_SERVER_2X below, 54 tests, +63 s here: 2.0's session manager and transport differ most from 2.3's;
# with them the tools/list prefetch of the older lines' client, 22 tests, +4 s;
# 2.1.0 and 2.2.0 were run by hand). On 1.x it runs on the SDK's session loop (shared/sdk_compat.py,
# SESSION_LOOP_SERVER): test_session_loop_http_server.py (1.x FastMCP and low-level servers, our Python and TS
# clients, the SDK's JSON client; skipped on 2.x). The tests of mcp 2.3's HTTP client (and of FastMCP 4 and the
# agent frameworks, which need 2.3) are not collected on the older lines, nor any test_http_*.py on 1.x
# (tests/conftest.py says why in the header).
#
# The newest SDK line (2.3.0, python/requirements-test.txt's pins) runs once more on the newest CPython pyenv
# has (3.13.0 here; `NEWEST_PYTHON=/path/to/python3` to choose): the same subset, the heap bounds (CPython's
# object sizes change between versions) and a FastMCP HTTP app read by the TS client. 3.14 is not
# on this machine and no registry it reaches serves it (PyPI and npm carry no CPython build, Debian 12's apt
# has 3.11; `uv python install` downloads from elsewhere and is refused): python/README.md, "Tests".
#
#   bash scripts/test-python-sdks.sh              # every line
#   bash scripts/test-python-sdks.sh 1.24.0       # one line
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=("${@:-1.24.0 1.30.0 2.0.0 2.3.0}")
read -r -a LINES <<<"${LINES[*]}"
SUBSET=(
  python/tests/test_interop_python.py python/tests/test_interop_ts.py python/tests/test_run.py python/tests/test_langchain.py python/tests/test_mcp_use.py
  python/tests/test_fastmcp_client_http.py
  python/tests/test_messages.py python/tests/test_layout.py python/tests/test_streams.py python/tests/test_order.py
  python/tests/test_spec_acceptances_stdio.py python/tests/test_older_sdk_http_client.py python/tests/test_opening_http.py
  python/tests/test_session_loop_http_server.py python/tests/test_readme.py::test_the_mcp_1x_server_block_serves_its_image_as_native_bytes
  python/tests/test_hostile.py::test_every_refused_fixture_is_answered_by_id_and_the_connection_goes_on
  python/tests/test_hostile.py::test_a_client_that_dies_mid_frame_leaves_the_server_exiting_cleanly
  python/tests/test_hostile.py::test_a_server_dying_mid_frame_fails_the_pending_request_at_once
)
HEAP_BOUNDS=(
  python/tests/test_hostile.py::test_no_hostile_shape_builds_more_than_16x_its_size
  python/tests/test_hostile.py::test_the_guard_itself_holds_little_on_key_heavy_payloads
  python/tests/test_bulk.py::test_no_hostile_shape_costs_more_than_16x_through_the_bulk_path
)
# The HTTP server app on the oldest 2.x (its session manager and transport differ most from 2.3's): JSON,
# MessagePack and native bytes, 2026-07-28, sessions (cap, DELETE, idle timeout), the TS client, compression.
HTTP_SERVER_2X=(
  python/tests/test_http_server.py python/tests/test_http_modern.py python/tests/test_http_sessions.py
  python/tests/test_http_ts_client.py
  python/tests/test_http_tools_prefetch.py
  python/tests/test_http_coding.py::test_the_stock_client_gets_coded_replies_and_streams
  python/tests/test_http_coding.py::test_a_coded_request_body_is_decoded
  python/tests/test_http_coding.py::test_hostile_coded_bodies_get_a_clear_4xx_and_the_server_goes_on
)
# The HTTP side on the newest CPython (the newest SDK line only: the 2.3 client and FastMCP 4 need it).
NEWEST_EXTRA=(python/tests/test_http_fastmcp.py)
heap_bounds_run=0
PY310="${PYENV_ROOT:-$HOME/.pyenv}/versions/3.10.13/bin/python3"
newest_pyenv=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.* 2>/dev/null | sort -V | tail -n 1)
NEWEST_PYTHON="${NEWEST_PYTHON:-${newest_pyenv:+$newest_pyenv/bin/python3}}"
status=0
for sdk in "${LINES[@]}"; do
  requirements="python/requirements-sdk-$sdk.txt"
  [ "$sdk" = 2.3.0 ] && requirements=python/requirements-test.txt  # the newest line's own pins
  [ -f "$requirements" ] || { echo "test-python-sdks: no $requirements" >&2; exit 1; }
  python=python3
  case "$sdk" in
    1.24.0 | 2.0.0)
      if [ -x "$PY310" ]; then python="$PY310"; else
        echo "test-python-sdks: Python 3.10 not found at $PY310: mcp $sdk runs on $(python3 --version) instead" >&2
      fi ;;
    2.3.0)
      if [ -n "$NEWEST_PYTHON" ] && [ -x "$NEWEST_PYTHON" ]; then python="$NEWEST_PYTHON"; else
        echo "test-python-sdks: no newer CPython in pyenv: mcp $sdk runs on $(python3 --version) instead" >&2
      fi ;;
  esac
  pyversion=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv=".cache/py-sdk-$sdk-py$pyversion"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" -e ./python
  echo "== mcp $sdk on Python $pyversion"
  start=$(date +%s)
  run=0
  tests=("${SUBSET[@]}")
  if [ "$pyversion" = 3.10 ] && [ "$heap_bounds_run" -eq 0 ]; then tests+=("${HEAP_BOUNDS[@]}"); heap_bounds_run=1; fi
  if [ "$sdk" = 2.3.0 ]; then tests+=("${HEAP_BOUNDS[@]}" "${NEWEST_EXTRA[@]}"); fi
  if [ "$sdk" = 2.0.0 ]; then tests+=("${HTTP_SERVER_2X[@]}"); fi
  "$venv/bin/python" -m pytest "${tests[@]}" -q -p no:cacheprovider || run=$?
  echo "== mcp $sdk on Python $pyversion: pytest exit $run, $(($(date +%s) - start)) s"
  if [ "$run" -eq 5 ]; then echo "test-python-sdks: mcp $sdk: no tests collected: failing" >&2; run=1; fi
  [ "$run" -eq 0 ] || status=1
done
exit "$status"
