"""Which tests the installed `mcp` SDK can run: the suite runs on every SDK line the package supports
(scripts/test-python-sdks.sh). The Streamable HTTP server app and the 2.3 client (`client/streamable_http.py`)
need mcp 2.3's internals (shared/sdk_compat.py): on an SDK without them test_http_*.py is not collected (those
files import the 2.3 side at the top, and their servers are 2.x `MCPServer`s) and the HTTP bench command is
skipped. On 1.x the server app itself runs (on the SDK's session loop, SESSION_LOOP_SERVER):
test_session_loop_http_server.py tests it there with 1.x servers, skipped on 2.x. There the package's
`streamable_http_client` is `client/streamable_http_httpx.py` (test_older_sdk_http_client.py, run on every
line). The run's header says which and why."""

from __future__ import annotations

import pytest

from mcp_msgpack.shared.sdk_compat import HTTP_UNAVAILABLE, SDK_VERSION

HTTP_REASON = f"Streamable HTTP needs mcp 2.3+ internals (installed mcp {SDK_VERSION}: {HTTP_UNAVAILABLE})"

collect_ignore_glob = ["test_http_*.py"] if HTTP_UNAVAILABLE is not None else []


def pytest_report_header(config: pytest.Config) -> str:
    if HTTP_UNAVAILABLE is None:
        return f"mcp {SDK_VERSION}: every test"
    return (
        f"mcp {SDK_VERSION}: test_http_*.py not collected and the HTTP bench skipped: {HTTP_REASON}; "
        "the HTTP client is client/streamable_http_httpx.py (test_older_sdk_http_client.py)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HTTP_UNAVAILABLE is None:
        return
    skip = pytest.mark.skip(reason=HTTP_REASON)
    for item in items:
        if "measure_http" in item.name or "needs_http" in item.keywords:
            item.add_marker(skip)
