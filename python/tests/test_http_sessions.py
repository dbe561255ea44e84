"""A session's life on our app, the same on every 2.x (on 2.0-2.1 our manager opens and times sessions itself,
server/streamable_http_sdk_lines.py; on 2.2+ the SDK's manager does, through our `_admit_session`): the session
cap (503 `too-many-sessions`, room again once one is deleted), DELETE (the id is 404 at once), an opening request
that fails leaves no session behind, and the idle timeout (a session with no request in flight for that long
ends; an open GET stream holds it, as 2.2's rule has it)."""

from __future__ import annotations

import time

import httpx2
import msgpack
import pytest

from http_peers import python_server, write_image
from test_http_endpoint import INIT, _error, _open, _post

pytestmark = pytest.mark.timeout(120)

PING = {"jsonrpc": "2.0", "id": 9, "method": "ping"}


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    return write_image(tmp_path_factory.mktemp("sessions"))[0]


@pytest.fixture(scope="module")
def capped_url(image):
    with python_server(image, "--max-sessions=2") as address:
        yield address


@pytest.fixture(scope="module")
def idle_url(image):
    with python_server(image, "--session-idle-timeout=1.5") as address:
        yield address


def _delete(url: str, headers: dict[str, str]) -> httpx2.Response:
    return httpx2.delete(url, headers=headers, timeout=30)


def test_the_session_cap_is_503_and_a_deleted_session_frees_its_place(capped_url):
    first, second = _open(capped_url), _open(capped_url)
    refused = _post(capped_url, INIT)
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert "msgpack" in refused.headers["content-type"]  # on the wire the request prefers (SPEC 9.2)
    assert _error(refused)["data"] == {"reason": "too-many-sessions"}
    assert _delete(capped_url, first).status_code in (200, 204)
    gone = _post(capped_url, PING, **first)
    assert gone.status_code == 404 and _error(gone)["code"] == -32001
    third = _open(capped_url)
    assert _post(capped_url, PING, **third).status_code == 200
    for headers in (second, third):
        assert _delete(capped_url, headers).status_code in (200, 204)


def test_an_opening_request_that_fails_leaves_no_session(capped_url):
    broken = _post(capped_url, INIT, **{"content-type": "application/msgpack"})
    assert broken.status_code == 200  # (the control: a good one opens a session)
    assert _delete(capped_url, {"mcp-session-id": broken.headers["mcp-session-id"]}).status_code in (200, 204)
    for _ in range(3):  # three failed openings against a cap of 2
        truncated = httpx2.post(
            capped_url, content=msgpack.packb(INIT)[:-3],
            headers={"accept": "application/msgpack, application/json, text/event-stream", "content-type": "application/msgpack"},
            timeout=30,
        )
        assert truncated.status_code == 400
    opened = [_open(capped_url), _open(capped_url)]  # both fit: the failed ones took no place
    for headers in opened:
        assert _delete(capped_url, headers).status_code in (200, 204)


def test_a_session_idle_past_its_timeout_is_ended(idle_url):
    headers = _open(idle_url)
    assert _post(idle_url, PING, **headers).status_code == 200
    time.sleep(4)  # the timeout is 1.5 s here: generous
    gone = _post(idle_url, PING, **headers)
    assert gone.status_code == 404 and _error(gone)["code"] == -32001


def test_an_open_get_stream_holds_the_session_past_its_timeout(idle_url):
    headers = _open(idle_url)
    with httpx2.stream("GET", idle_url, headers={**headers, "accept": "text/event-stream"}, timeout=30) as stream:
        assert stream.status_code == 200
        time.sleep(4)  # past the 1.5 s timeout, with the GET in flight
        assert _post(idle_url, PING, **headers).status_code == 200
    assert _delete(idle_url, headers).status_code in (200, 204)
