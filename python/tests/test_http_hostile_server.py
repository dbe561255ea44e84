"""Our HTTP client against a hostile server (SPEC 5, 9.4): a frame stream cut mid-frame, a header over the cap,
a refused frame, a bin nobody negotiated. Each loses what it must and no more; no call waits for a timeout."""

from __future__ import annotations

import time

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from hostile_http_peer import SCENARIO, hostile_server
from mcp_msgpack.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def url():
    with hostile_server() as url:
        yield url


async def _list_tools(url: str):
    async with streamable_http_client(url, terminate_on_close=False) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        try:
            return await session.list_tools()
        except MCPError as error:  # returned, not raised: the task groups around would wrap it
            return error


def _run(url: str, scenario: str):
    SCENARIO["name"] = scenario
    start = time.monotonic()
    try:
        return anyio.run(_list_tools, url), time.monotonic() - start
    finally:
        SCENARIO["name"] = "good"


def test_a_refused_frame_loses_only_itself(url):
    result, _ = _run(url, "refused-then-good")
    assert result.tools == []


@pytest.mark.parametrize("scenario", ["truncated", "too-large"])
def test_a_broken_stream_fails_the_call_at_once(url, scenario):
    failure, elapsed = _run(url, scenario)
    assert isinstance(failure, MCPError) and "frame stream ended" in str(failure)
    assert elapsed < 10  # not a read timeout: the stream's end fails the call


def test_an_unnegotiated_bin_fails_the_call_by_its_id(url):
    failure, _ = _run(url, "bin-not-negotiated")
    assert isinstance(failure, MCPError)
    assert failure.error.code == -32700 and failure.error.data == {"reason": "forbidden-type"}
