#!/usr/bin/env bash
# The Python agent frameworks' own MCP integrations on this package (msgpack-v1, native bytes, an image's
# bytes checked), no model called: openai-agents (MCPServerStreamableHttp), google-adk (McpToolset), FastMCP's
# Client and Pydantic AI's MCPToolset (tests/test_http_agent_frameworks.py, tests/test_http_frameworks.py),
# against the TS media server over Streamable HTTP. They are pinned in python/requirements-frameworks.txt and
# installed with the package from the checkout into .cache/py-frameworks (made here on first use: about 2 min
# of installs, once). The TS packages must be built (`npm run build`). Exits non-zero when a test fails and
# when none ran (pytest's exit 5), or when one skipped (a framework that did not import).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.cache/py-frameworks
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-frameworks.txt -e ./python
start=$(date +%s)
status=0
"$VENV/bin/python" -m pytest python/tests/test_http_agent_frameworks.py python/tests/test_http_frameworks.py \
  -q -p no:cacheprovider -rs 2>&1 | tee .cache/py-frameworks.txt || status=$?
echo "== Python agent frameworks: pytest exit $status, $(($(date +%s) - start)) s"
if [ "$status" -eq 5 ]; then echo "test-python-frameworks: no tests collected: failing" >&2; exit 1; fi
if grep -q '^SKIPPED' .cache/py-frameworks.txt; then echo "test-python-frameworks: a framework test skipped: failing" >&2; exit 1; fi
exit "$status"
