#!/usr/bin/env bash
# The Python package as a user gets it (as `npm run test:packed` does for npm): an sdist and a wheel built from
# python/ (`python -m build`, pinned in python/requirements-test.txt), their contents checked (the wheel: the
# package, py.typed, LICENSE, the console script; the sdist: no tests, which need the repository, and the
# README's link target SPEC-NOTES.md), then the wheel installed in a fresh virtualenv outside the checkout with
# the SDK and mypy pinned, where `mcp-msgpack-run --version` runs and a user program
# (python/tests/packed/user_program.py) passes `mypy --strict` and runs: it assigns call_tool_native's image
# data to `bytes`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=.cache/py-venv
[ -x "$VENV/bin/python" ] || bash scripts/test-python.sh --co -q >/dev/null
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-test.txt
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$VENV/bin/python" -m build --outdir "$WORK/dist" python >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; exit 1; }
wheel=$(ls "$WORK"/dist/*.whl)
sdist=$(ls "$WORK"/dist/*.tar.gz)
"$VENV/bin/python" - "$wheel" "$sdist" <<'PY'
import sys, tarfile, zipfile
wheel, sdist = sys.argv[1], sys.argv[2]
names = zipfile.ZipFile(wheel).namelist()
for needed in ("mcp_msgpack/__init__.py", "mcp_msgpack/py.typed", "mcp_msgpack/shared/sdk_compat.py"):
    assert needed in names, f"wheel lacks {needed}"
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "wheel lacks LICENSE"
meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
for line in ("License-Expression: MIT", "Project-URL: Source", "Classifier: Typing :: Typed", "Requires-Dist: mcp<3,>=1.24"):
    assert line in meta, f"wheel METADATA lacks {line!r}"
members = tarfile.open(sdist).getnames()
assert not any("/tests/" in m for m in members), "the sdist ships tests (they need the repository)"
for needed in ("SPEC-NOTES.md", "LICENSE", "README.md", "src/mcp_msgpack/py.typed"):
    assert any(m.endswith("/" + needed) for m in members), f"sdist lacks {needed}"
print(f"packed: {wheel.rsplit('/', 1)[1]} ({len(names)} files), {sdist.rsplit('/', 1)[1]} ({len(members)} members)")
PY
python3 -m venv "$WORK/user"
mcp=$(grep -E '^mcp==' python/requirements-test.txt)
mypy=$(grep -E '^mypy==' python/requirements-test.txt)
"$WORK/user/bin/pip" install --quiet --disable-pip-version-check "$wheel" "$mcp" "$mypy"
"$WORK/user/bin/mcp-msgpack-run" --version
cp python/tests/packed/user_program.py "$WORK/user_program.py"
(cd "$WORK" && user/bin/python -m mypy --strict user_program.py)
(cd "$WORK" && user/bin/python user_program.py "$WORK/user/bin/mcp-msgpack-run" "$ROOT/python/tests/servers/highlevel_server.py")
