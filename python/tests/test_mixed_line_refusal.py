"""SPEC 4.3 and 5.2 on a mixed stream (7.4): a JSON line that is JSON but no JSON-RPC message, its request id
readable, is answered -32600 `not-json-rpc` for that id, as a frame would be; before the switch (the JSON wire)
such a line is the SDK's, as on MCP's own stdio. The shared probe set holds both servers to it
(fixtures/probes/stdio.json, `mixed/line-not-json-rpc`)."""

from __future__ import annotations

import json

from mcp_msgpack.shared.stdio_connection import SEND_JSON, SEND_MIXED, WireState

LINE = "line"
NOT_JSON_RPC = b'{"jsonrpc":"2.0","id":"nj","method":"ping","params":[]}'


def _mixed() -> WireState:
    state = WireState(encoding="json")  # every reply a JSON line, so it reads back here as JSON
    state.send = SEND_MIXED
    return state


def test_a_line_that_is_no_message_is_answered_by_its_id_on_a_mixed_stream():
    outcome = _mixed().read(LINE, NOT_JSON_RPC)
    reply = json.loads(outcome.reply)
    assert reply["id"] == "nj"
    assert reply["error"]["code"] == -32600
    assert reply["error"]["data"]["reason"] == "not-json-rpc"


def test_only_a_readable_request_id_is_answered():
    for line in (
        b'{"jsonrpc":"2.0","id":true,"method":"ping","params":[]}',  # no id a reply may carry
        b'{"jsonrpc":"2.0","id":9007199254740993,"method":"ping","params":[]}',  # past 2^53-1
        b'{"jsonrpc":"2.0","id":"r","result":[]}',  # a response is never answered
        b"{not json",
    ):
        assert _mixed().read(LINE, line).reply is None, line


def test_on_the_json_wire_the_line_is_the_sdks():
    state = WireState()
    assert state.send == SEND_JSON
    outcome = state.read(LINE, NOT_JSON_RPC)
    assert outcome.reply is None
    assert isinstance(outcome.deliver, Exception)
