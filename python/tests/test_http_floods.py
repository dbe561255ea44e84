"""Issue 39 item 6 (Python side): a flood of idle and half-sent connections locks nobody out. With the
request-head deadline (server/connection_deadlines.py) uvicorn closes connections whose head does not come in
time, and a new client is served during the flood. Loopback only, bounded in count and time."""

from __future__ import annotations

import selectors
import socket
import time

import httpx2
import msgpack
import pytest

from http_peers import python_server, write_image

pytestmark = pytest.mark.timeout(180)

IDLE = 200
PARTIAL = 200
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _flood(port: int) -> list[socket.socket]:
    held = []
    for index in range(IDLE + PARTIAL):
        conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        if index >= IDLE:  # a request head cut short, as a slow-header client leaves it
            conn.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/msgpack\r\n")
        held.append(conn)
    return held


def _closed_by_server(held: list[socket.socket], within: float) -> int:
    """How many of `held` the server closed (EOF read) within `within` seconds."""
    selector = selectors.DefaultSelector()
    for conn in held:
        conn.setblocking(False)
        selector.register(conn, selectors.EVENT_READ)
    closed = 0
    deadline = time.monotonic() + within
    while closed < len(held) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            try:
                data = key.fileobj.recv(4096)
            except ConnectionResetError:
                data = b""
            if not data:
                selector.unregister(key.fileobj)
                closed += 1
    selector.close()
    return closed


@pytest.mark.parametrize("head_timeout", [None, 2.0], ids=["uvicorn-defaults", "head-deadline"])
def test_a_flood_of_idle_and_partial_connections(tmp_path, head_timeout):
    path, _ = write_image(tmp_path)
    extra = () if head_timeout is None else (f"--head-timeout={head_timeout}",)
    with python_server(path, *extra) as url:
        port = int(url.split(":")[2].split("/")[0])
        held = _flood(port)
        try:
            response = httpx2.post(
                url, content=msgpack.packb(INIT), timeout=30,
                headers={"accept": "application/msgpack, application/vnd.mcp-msgpack.stream, application/json, text/event-stream",
                         "content-type": "application/msgpack"},
            )
            assert response.status_code == 200  # a new client is served during the flood
            closed = _closed_by_server(held, within=20 if head_timeout else 4)
        finally:
            for conn in held:
                conn.close()
    if head_timeout is None:
        assert closed == 0  # uvicorn alone keeps every one of them (what the deadline is for)
    else:
        assert closed == IDLE + PARTIAL
