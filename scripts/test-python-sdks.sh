#!/usr/bin/env bash
# The Python package on the other SDK lines it supports (python/pyproject.toml: mcp>=1.24,<3): the oldest and
# newest 1.x and the oldest 2.x (the newest 2.x is scripts/test-python.sh's own run, python/requirements-test.txt),
# each in its own virtualenv under .cache/ from python/requirements-sdk-<version>.txt (exact pins), with the
# package installed from the checkout. The oldest of each line runs on Python 3.10 (the package's floor) where
# pyenv has it, else on python3, said so.
#
# A subset: the tests whose code differs by SDK line (the stdio transports both ways with the SDK's client and
# server sessions, the TypeScript client on a Python server, mcp-msgpack-run on 1.x FastMCP / 2.x MCPServer /
# low-level servers, the models at the edge, the package layout; langchain-mcp-adapters, which needs mcp 1.x,
# on the 1.30.0 line). The codec's own tests (golden, bulk, budget,
# hostile shapes and their heap bounds) touch no SDK code and run once, in test-python.sh (their tracemalloc
# bounds are CPython-version sensitive: on 3.10 one 1 MiB shape builds 18.6x against the 16x asserted on 3.11,
# issue 42's report). The Streamable HTTP tests need mcp 2.3's
# internals: on these lines they are not collected (tests/conftest.py says why in the header).
#
#   bash scripts/test-python-sdks.sh              # every line
#   bash scripts/test-python-sdks.sh 1.24.0       # one line
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=("${@:-1.24.0 1.30.0 2.0.0}")
read -r -a LINES <<<"${LINES[*]}"
SUBSET=(
  python/tests/test_interop_python.py python/tests/test_interop_ts.py python/tests/test_run.py python/tests/test_langchain.py
  python/tests/test_messages.py python/tests/test_layout.py python/tests/test_streams.py python/tests/test_order.py
  python/tests/test_spec_acceptances_stdio.py
  python/tests/test_hostile.py::test_every_refused_fixture_is_answered_by_id_and_the_connection_goes_on
  python/tests/test_hostile.py::test_a_client_that_dies_mid_frame_leaves_the_server_exiting_cleanly
  python/tests/test_hostile.py::test_a_server_dying_mid_frame_fails_the_pending_request_at_once
)
PY310="${PYENV_ROOT:-$HOME/.pyenv}/versions/3.10.13/bin/python3"
status=0
for sdk in "${LINES[@]}"; do
  requirements="python/requirements-sdk-$sdk.txt"
  [ -f "$requirements" ] || { echo "test-python-sdks: no $requirements" >&2; exit 1; }
  python=python3
  case "$sdk" in
    1.24.0 | 2.0.0)
      if [ -x "$PY310" ]; then python="$PY310"; else
        echo "test-python-sdks: Python 3.10 not found at $PY310: mcp $sdk runs on $(python3 --version) instead" >&2
      fi ;;
  esac
  pyversion=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  venv=".cache/py-sdk-$sdk-py$pyversion"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" -e ./python
  echo "== mcp $sdk on Python $pyversion"
  start=$(date +%s)
  run=0
  "$venv/bin/python" -m pytest "${SUBSET[@]}" -q -p no:cacheprovider || run=$?
  echo "== mcp $sdk on Python $pyversion: pytest exit $run, $(($(date +%s) - start)) s"
  if [ "$run" -eq 5 ]; then echo "test-python-sdks: mcp $sdk: no tests collected: failing" >&2; run=1; fi
  [ "$run" -eq 0 ] || status=1
done
exit "$status"
