"""Issue 39 item 3, its stdio part: an integral float id (SPEC 3.4) decodes as the integer and is answered on
stdio. Apart from the HTTP acceptances (test_spec_acceptances.py) since it needs no HTTP side: it runs on every
SDK line (scripts/test-python-sdks.sh)."""

from __future__ import annotations

import struct
import subprocess

import msgpack
from wiretap import MEDIA_SERVER, PYTHON

from mcp_msgpack.wire import FrameReader, decode_payload, encode_frame


def float_id(method: str, number: float = 7.0, params: dict | None = None) -> bytes:
    """A request whose id is written as float 64 (msgpack writes a Python float so)."""
    message = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return msgpack.packb(message, use_single_float=False)


def test_an_integral_float_id_decodes_as_the_integer():
    assert decode_payload(float_id("ping"))["id"] == 7
    assert type(decode_payload(float_id("ping"))["id"]) is int
    assert decode_payload(msgpack.packb({"jsonrpc": "2.0", "id": 7.0, "method": "x"}, use_single_float=True))["id"] == 7


def test_an_integral_float_id_is_answered_on_stdio():
    process = subprocess.Popen([PYTHON, MEDIA_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    reader = FrameReader(1 << 26)
    pending: list[bytes] = []

    def send(payload: bytes) -> None:
        process.stdin.write(struct.pack(">I", len(payload)) + payload)
        process.stdin.flush()

    def receive() -> dict:
        while not pending:
            chunk = process.stdout.read1(1 << 16)
            assert chunk, "the server closed"
            pending.extend(reader.feed(chunk))
        return msgpack.unpackb(pending.pop(0))

    try:
        send(encode_frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})[4:])
        assert receive()["id"] == 0
        send(encode_frame({"jsonrpc": "2.0", "method": "notifications/initialized"})[4:])
        send(float_id("tools/call", 7.0, {"name": "echo", "arguments": {"text": "seven"}}))
        answer = receive()
        assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == "seven"
    finally:
        process.stdin.close()
        process.wait(timeout=30)
