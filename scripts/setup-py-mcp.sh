#!/usr/bin/env bash
# Installs the Python MCP SDK (PyPI `mcp`, pinned) into .cache/py-mcp, where the Python interop tests
# (packages/transport-msgpack/test/python-peers.test.ts) look for it. Safe to run again: it does nothing
# when that version is already there. CI runs it (.ci/run); without it those tests skip, except under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
MCP_VERSION=2.3.0
VENV=.cache/py-mcp
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null)" = "$MCP_VERSION" ]; then
  echo "python mcp $MCP_VERSION already in $VENV"
  exit 0
fi
if ! python3 -m venv "$VENV" 2>/dev/null; then
  # A Debian python3 without ensurepip: its venv module comes in python3-venv.
  rm -rf "$VENV"
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION"
echo "python mcp $MCP_VERSION installed in $VENV ($("$VENV/bin/python" --version))"
