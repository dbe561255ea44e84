"""SPEC 7.4 on a mixed stream: "a bad message in either is refused as 5.2 says, answered by id where the id
could be read". A JSON line that is JSON but not JSON-RPC is answered by its id (-32600, `not-json-rpc`); a
line that is not JSON, and any bad line on a JSON-only stream (the SDK's own path), is reported only."""

from __future__ import annotations

import json

import msgpack

from mcp_msgpack.server.stdio import _ServerWire
from mcp_msgpack.shared.stdio_connection import SEND_MIXED
from mcp_msgpack.wire.reader import JSON, LINE, MIXED


def _wire(mode: str) -> _ServerWire:
    wire = _ServerWire("auto", True)
    wire.reader.mode = mode
    if mode == MIXED:
        wire.send = SEND_MIXED
    return wire


def _answer(reply: bytes) -> dict:
    # On a mixed stream the answer is a line or a frame, as the encoding policy picks (SPEC-NOTES 6).
    return json.loads(reply) if reply[:1] == b"{" else msgpack.unpackb(reply[4:])


def test_a_json_line_that_is_not_json_rpc_is_answered_by_its_id_on_a_mixed_stream():
    outcome = _wire(MIXED).read(LINE, b'{"jsonrpc": "2.0", "id": 5, "method": 3}')
    assert outcome.reply is not None
    answer = _answer(outcome.reply)
    assert answer["id"] == 5 and answer["error"]["code"] == -32600, answer
    assert answer["error"]["data"] == {"reason": "not-json-rpc"}
    assert outcome.deliver is not None  # and reported to the session too, as a refused frame is


def test_a_line_that_is_not_json_or_has_no_request_id_is_only_reported():
    for line in (b'{"jsonrpc": "2.0", "id": 5, "method"', b'{"jsonrpc": "2.0", "method": 3}'):
        outcome = _wire(MIXED).read(LINE, line)
        assert outcome.reply is None and isinstance(outcome.deliver, Exception), line


def test_on_a_json_only_stream_a_bad_line_is_reported_as_the_sdk_does():
    outcome = _wire(JSON).read(LINE, b'{"jsonrpc": "2.0", "id": 5, "method": 3}')
    assert outcome.reply is None and isinstance(outcome.deliver, Exception)


def test_only_a_request_id_a_reply_may_carry_is_answered():
    # Found by the shared probe set (fixtures/probes/stdio.json, `mixed/*`): an id no reply may carry, an
    # integer id past 2^53-1 and a response are never answered.
    for line in (
        b'{"jsonrpc":"2.0","id":true,"method":"ping","params":[]}',
        b'{"jsonrpc":"2.0","id":9007199254740993,"method":"ping","params":[]}',
        b'{"jsonrpc":"2.0","id":"r","result":[]}',
    ):
        assert _wire(MIXED).read(LINE, line).reply is None, line
