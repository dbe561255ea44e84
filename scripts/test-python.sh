#!/usr/bin/env bash
# The Python package's tests (python/, pytest): a pinned virtualenv in .cache/py-venv, the package installed
# editable with its pinned test dependencies (python/requirements-test.txt), mypy --strict on it, then pytest. The cross-language
# tests need the TypeScript packages built (`npm run build`) and Node on PATH. Exits non-zero when pytest
# fails, and also when it collected no test at all (its exit status 5), so an empty run cannot pass.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.cache/py-venv
if [ ! -x "$VENV/bin/python" ]; then
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    # A Debian python3 without ensurepip: its venv module comes in python3-venv.
    rm -rf "$VENV"
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$VENV"
  fi
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-test.txt -e ./python
# Typing first (~20 s): the package is typed (py.typed) and must stay clean under mypy --strict, which
# python/pyproject.toml's [tool.mypy] sets; a user's mypy reads these annotations.
(cd python && "../$VENV/bin/python" -m mypy -p mcp_msgpack)
status=0
"$VENV/bin/python" -m pytest python/tests -q -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "test-python: pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
