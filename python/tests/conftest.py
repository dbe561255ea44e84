"""Which tests the installed `mcp` SDK can run: the suite runs on every SDK line the package supports
(scripts/test-python-sdks.sh). Two HTTP features depend on the SDK line (shared/sdk_compat.py):

- the Streamable HTTP server app (`streamable_http_app`) runs on every 2.x (`HTTP_SERVER_UNAVAILABLE`); on 1.x
  no test_http_*.py is collected (their servers are 2.x `MCPServer`s): there the app runs on the SDK's session
  loop (`SESSION_LOOP_SERVER`) and test_session_loop_http_server.py tests it with 1.x servers (skipped on 2.x);
- the 2.3 client (`client/streamable_http.py`) needs mcp 2.3's internals (`HTTP_UNAVAILABLE`); without them
  the package's `streamable_http_client` is `client/streamable_http_httpx.py` (test_older_sdk_http_client.py,
  run on every line), the files that test only the 2.3 client (or FastMCP 4 and the agent frameworks, which
  need mcp 2.3) are not collected, and tests marked `needs_http_client` are skipped, as is the HTTP bench.
  The server tests take the client the SDK line carries (`from mcp_msgpack.client import ...`).

The run's header says which and why."""

from __future__ import annotations

import pytest

from mcp_msgpack.shared.sdk_compat import HTTP_SERVER_UNAVAILABLE, HTTP_UNAVAILABLE, SDK_VERSION

HTTP_REASON = f"the mcp 2.3 HTTP client needs mcp 2.3+ internals (installed mcp {SDK_VERSION}: {HTTP_UNAVAILABLE})"
SERVER_REASON = f"the HTTP server app needs mcp 2.x internals (installed mcp {SDK_VERSION}: {HTTP_SERVER_UNAVAILABLE})"

CLIENT_23_FILES = [
    "test_http_client.py",
    "test_http_hostile_server.py",
    "test_http_fastmcp.py",
    "test_http_frameworks.py",
    "test_http_agent_frameworks.py",
]

if HTTP_SERVER_UNAVAILABLE is not None:
    collect_ignore_glob = ["test_http_*.py"]
elif HTTP_UNAVAILABLE is not None:
    collect_ignore_glob = CLIENT_23_FILES
else:
    collect_ignore_glob = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_http_client: tests the mcp 2.3 HTTP client (client/streamable_http.py)")


def pytest_report_header(config: pytest.Config) -> str:
    if HTTP_UNAVAILABLE is None:
        return f"mcp {SDK_VERSION}: every test"
    if HTTP_SERVER_UNAVAILABLE is not None:
        return (
            f"mcp {SDK_VERSION}: test_http_*.py not collected and the HTTP bench skipped: {SERVER_REASON}; "
            "the HTTP client is client/streamable_http_httpx.py (test_older_sdk_http_client.py)"
        )
    return (
        f"mcp {SDK_VERSION}: the HTTP server tests run; {', '.join(CLIENT_23_FILES)} not collected, "
        f"needs_http_client tests and the HTTP bench skipped: {HTTP_REASON}; the HTTP client is "
        "client/streamable_http_httpx.py (test_older_sdk_http_client.py)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HTTP_UNAVAILABLE is None:
        return
    skip = pytest.mark.skip(reason=HTTP_REASON)
    for item in items:
        if "measure_http" in item.name or "needs_http_client" in item.keywords:
            item.add_marker(skip)
