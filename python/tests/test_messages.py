"""Messages between the SDK's models and msgpack-v1, and the native-bytes edge, without any JSON text."""

from __future__ import annotations

import base64
import json

import mcp.types as types
import pydantic
import pytest

from mcp_msgpack.shared.extension import EXTENSION, LEGACY_EXPERIMENTAL, announce, announced_version
from mcp_msgpack.shared.stdio_connection import SEND_FRAMES, WireState
from mcp_msgpack.shared.message import from_session_message, to_session_message
from mcp_msgpack.shared.sdk_compat import message_model
from mcp_msgpack.wire import FRAME, WireError, decode_payload, encode_payload


@pytest.fixture
def no_json_text(monkeypatch):
    """Any JSON text made or parsed on the MessagePack path fails the test."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("JSON text on the MessagePack path")

    monkeypatch.setattr(json, "dumps", refuse)
    monkeypatch.setattr(json, "loads", refuse)
    monkeypatch.setattr(pydantic.BaseModel, "model_dump_json", refuse)
    monkeypatch.setattr(pydantic.TypeAdapter, "validate_json", refuse)


def test_jsonrpc_and_id_go_first_and_the_message_round_trips(no_json_text):
    message = types.JSONRPCResponse(result={"content": [{"type": "text", "text": "hi"}]}, jsonrpc="2.0", id=3)
    value = from_session_message(message)
    assert list(value) == ["jsonrpc", "id", "result"]
    back = to_session_message(decode_payload(encode_payload(value)))
    assert message_model(back.message) == message


def test_frames_are_written_and_read_without_json_text(no_json_text):
    image = base64.b64encode(b"\x89PNG" + bytes(range(256)) * 10).decode()
    message = types.JSONRPCResponse(jsonrpc="2.0", id="a", result={"content": [{"type": "image", "mimeType": "image/png", "data": image}]})
    sender, receiver = WireState(), WireState()
    sender.send = SEND_FRAMES
    sender.native_send = receiver.native_receive = True
    frame = sender.encode(message)
    assert decode_payload(frame[4:], nb_limits())["result"]["content"][0]["data"] == base64.b64decode(image)  # bin
    outcome = receiver.read(FRAME, frame[4:])
    assert message_model(outcome.deliver.message) == message  # base64 again for the SDK's models


def nb_limits():
    from mcp_msgpack.wire import ReceiveLimits

    return ReceiveLimits(allow_bin=True)


def test_a_bin_outside_the_media_fields_is_refused_with_8_3():
    value = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "x", "data": b"\x00"}]}}
    receiver = WireState()
    receiver.native_receive = True
    outcome = receiver.read(FRAME, encode_payload(value))
    # A response: our own pending request 1 fails at once with the refusal (SPEC 5.2 rule 3).
    assert isinstance(message_model(outcome.deliver.message), types.JSONRPCError)
    assert message_model(outcome.deliver.message).error.data == {"reason": "forbidden-type"}


def test_native_bytes_are_read_extensions_first():
    assert announced_version({"extensions": {EXTENSION: {"version": 1}}}) == 1
    assert announced_version({"extensions": {EXTENSION: "bad"}, "experimental": {LEGACY_EXPERIMENTAL: {"version": 1}}}) is None
    assert announced_version({"experimental": {LEGACY_EXPERIMENTAL: {"version": 1}}}) == 1
    announced = announce({"tools": {}})
    assert announced["extensions"][EXTENSION] == {"version": 1} and announced["experimental"][LEGACY_EXPERIMENTAL] == {"version": 1}


def test_a_refused_request_is_answered_with_its_id():
    receiver = WireState()
    outcome = receiver.read(FRAME, encode_payload({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"a": b"\x01"}}))
    assert isinstance(outcome.deliver, WireError)
    answer = json.loads(outcome.reply)
    assert answer == {"jsonrpc": "2.0", "id": 9, "error": {"code": -32700, "message": answer["error"]["message"], "data": {"reason": "forbidden-type"}}}
