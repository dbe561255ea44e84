"""Issue 39 item 5: the endpoint's promises (SPEC 9.2, 9.4) as the TS server keeps them: exact Host and Origin
(403), checked for loopback arrivals whatever the bind host, one initialize, requests only after
`notifications/initialized`, uninitialized sessions ended, -32001 for an unknown session, 400 for an empty one,
a GET with Last-Event-ID and no store served, `Accept: */*` 406 (POST and GET), 400 -32000 for a missing
Mcp-Session-Id and for an older unknown MCP-Protocol-Version, 415 with `Accept-Encoding: identity` for a coded
body (10.3)."""

from __future__ import annotations

import json
import socket
import time

import httpx2
import msgpack
import pytest

from http_peers import python_server, write_image

pytestmark = pytest.mark.timeout(180)

ANY = "application/msgpack;replies=any, application/vnd.mcp-msgpack.stream, application/json, text/event-stream"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
CALL = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}


@pytest.fixture(scope="module", params=["loopback", "any-address"])
def url(request, tmp_path_factory):
    """Our app as bound to loopback, and as told host='0.0.0.0' (requests still arrive on 127.0.0.1)."""
    path, _ = write_image(tmp_path_factory.mktemp("endpoint"))
    extra = ("--host=0.0.0.0",) if request.param == "any-address" else ()
    with python_server(path, "--initialization-deadline=1.5", *extra) as address:
        yield address


def _post(url: str, message: object, **headers: str) -> httpx2.Response:
    merged = {"accept": ANY, "content-type": "application/msgpack", **headers}
    return httpx2.post(url, content=msgpack.packb(message), headers=merged, timeout=30)


def _open(url: str, *, initialized: bool = True) -> dict[str, str]:
    opened = _post(url, INIT)
    assert opened.status_code == 200
    headers = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    if initialized:
        assert _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **headers).status_code == 202
    return headers


def _error(response: httpx2.Response) -> dict:
    body = response.content
    return (msgpack.unpackb(body) if "msgpack" in response.headers["content-type"] else json.loads(body))["error"]


@pytest.mark.parametrize("host", ["localhost:1.evil.com", "localhost:80@evil.com", "127.0.0.1:{port}.evil.com", "evil.com", "localhost:99999"])
def test_a_host_that_only_starts_like_loopback_is_403(url, host):
    port = url.split(":")[2].split("/")[0]
    response = _post(url, INIT, host=host.format(port=port))
    assert response.status_code == 403


MALFORMED_HOSTS = ["localhost:{port}.evil.com", "localhost:{port}@evil.com", "a b", "[::1", "", "localhost:99999", "a/b"]


def _raw_post(port: int, host: str) -> tuple[int, bytes]:
    """Status and body of an initialize POST with this Host, written raw (an HTTP client would fix the Host)."""
    body = json.dumps(INIT).encode()
    head = (f"POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode() + body)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    status = int(reply.split(b" ", 2)[1])
    return status, reply.split(b"\r\n\r\n", 1)[1]


@pytest.mark.parametrize("host", MALFORMED_HOSTS)
def test_a_malformed_host_is_403_with_the_checks_on(url, host):
    port = int(url.split(":")[2].split("/")[0])
    assert _raw_post(port, host.format(port=port))[0] == 403


@pytest.fixture(scope="module")
def unchecked_url(tmp_path_factory):
    """Our app with DNS-rebinding protection off (transport_security), as a server behind a proxy may run."""
    path, _ = write_image(tmp_path_factory.mktemp("unchecked"))
    with python_server(path, "--no-host-check") as address:
        yield address


@pytest.mark.parametrize("host", MALFORMED_HOSTS)
def test_a_malformed_host_is_400_invalid_host_with_the_checks_off(unchecked_url, host):
    """SPEC 9.4, as the TS server answers it (issue 39): never served, never a 500."""
    port = int(unchecked_url.split(":")[2].split("/")[0])
    status, body = _raw_post(port, host.format(port=port))
    assert status == 400
    error = json.loads(body)["error"]
    assert (error["code"], error["data"]["reason"]) == (-32000, "invalid-host")


def test_a_plain_host_is_served_with_the_checks_off(unchecked_url):
    port = int(unchecked_url.split(":")[2].split("/")[0])
    assert _raw_post(port, "example.com")[0] == 200


@pytest.mark.parametrize("origin", ["http://localhost:1.evil.com", "http://localhost:80@evil.com", "http://evil.com", "null"])
def test_an_origin_that_is_not_loopback_is_403(url, origin):
    assert _post(url, INIT, origin=origin).status_code == 403


def test_loopback_host_and_origin_pass(url):
    port = url.split(":")[2].split("/")[0]
    assert _post(url, INIT, host=f"localhost:{port}", origin=f"http://localhost:{port}").status_code == 200
    assert _post(url, INIT, host="localhost").status_code == 200


def test_a_second_initialize_is_400_and_the_session_goes_on(url):
    headers = _open(url)
    again = _post(url, {**INIT, "id": 2}, **headers)
    assert again.status_code == 400 and _error(again)["code"] == -32600
    assert _post(url, CALL, **headers).status_code == 200


def test_a_request_before_initialized_is_400_then_served(url):
    headers = _open(url, initialized=False)
    early = _post(url, CALL, **headers)
    assert early.status_code == 400
    error = _error(early)
    assert error["code"] == -32000 and error["data"]["reason"] == "not-initialized"
    assert _post(url, {"jsonrpc": "2.0", "id": 6, "method": "ping"}, **headers).status_code == 200  # ping is fine
    assert _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **headers).status_code == 202
    assert _post(url, CALL, **headers).status_code == 200


def test_an_uninitialized_session_ends_at_the_deadline(url):
    headers = _open(url, initialized=False)
    time.sleep(3)  # the deadline is 1.5 s here: generous
    gone = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, **headers)
    assert gone.status_code == 404 and _error(gone)["code"] == -32001


def test_unknown_and_empty_session_ids(url):
    unknown = _post(url, CALL, **{"mcp-session-id": "forged", "mcp-protocol-version": "2025-11-25"})
    assert unknown.status_code == 404 and _error(unknown)["code"] == -32001
    empty = _post(url, CALL, **{"mcp-session-id": "", "mcp-protocol-version": "2025-11-25"})
    assert empty.status_code == 400


@pytest.mark.parametrize("accept", ["text/event-stream", "application/vnd.mcp-msgpack.stream"])
def test_last_event_id_without_a_store_opens_the_stream(url, accept):
    headers = _open(url)
    with httpx2.stream("GET", url, headers={"accept": accept, "last-event-id": "7", **headers}, timeout=30) as response:
        assert response.status_code == 200


def test_accept_any_is_406(url):
    response = httpx2.post(url, json=INIT, headers={"accept": "*/*", "content-type": "application/json"}, timeout=30)
    assert response.status_code == 406


def test_a_get_with_accept_any_is_406(url):
    headers = _open(url)
    response = httpx2.get(url, headers={"accept": "*/*", **headers}, timeout=30)
    assert response.status_code == 406 and _error(response)["code"] == -32000


@pytest.mark.parametrize("wire", ["msgpack", "json"])
def test_a_request_without_the_session_header_is_400_32000(url, wire):
    _open(url)
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    if wire == "json":
        response = httpx2.post(url, json=ping, headers={"accept": "application/json, text/event-stream"}, timeout=30)
    else:
        response = _post(url, ping)
    assert response.status_code == 400 and _error(response)["code"] == -32000


def test_an_older_unknown_protocol_version_is_400_32000_and_the_session_goes_on(url):
    headers = _open(url)
    ping = {"jsonrpc": "2.0", "id": 10, "method": "ping"}
    refused = _post(url, ping, **{**headers, "mcp-protocol-version": "1999-01-01"})
    assert refused.status_code == 400
    error = _error(refused)
    assert error["code"] == -32000 and "2025-11-25" in error["message"]  # the message lists what is supported
    assert _post(url, ping, **headers).status_code == 200
    # A later unknown revision is the 2026-07-28 path's (SPEC 9.5), not this refusal.
    assert _error(_post(url, ping, **{**headers, "mcp-protocol-version": "2099-01-01"}))["code"] != -32000


@pytest.mark.parametrize("coding", ["gzip", "x-probe-unknown", "identity, gzip", "gzip, br"])
def test_a_coded_body_is_decoded_or_refused(url, coding):
    """SPEC 10.3: a body labelled in a coding the server takes is decoded (a plain body so labelled does not decode:
    400 -32700); one in a coding it does not take, or in two, is 415 naming those it takes (test_http_coding.py
    has `identity` alone with compression off)."""
    headers = _open(url)
    response = _post(url, {"jsonrpc": "2.0", "id": 11, "method": "ping"}, **headers, **{"content-encoding": coding})
    if coding in ("gzip", "identity, gzip"):
        assert response.status_code == 400 and _error(response)["code"] == -32700
    else:
        assert response.status_code == 415 and _error(response)["code"] == -32000
        assert response.headers["accept-encoding"] == "zstd, br, gzip"
    # `identity` is no coding: the same body labelled so is served.
    assert _post(url, {"jsonrpc": "2.0", "id": 12, "method": "ping"}, **headers, **{"content-encoding": "identity"}).status_code == 200
