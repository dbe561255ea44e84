"""Golden fixtures: every case encodes to its frame byte for byte and decodes back (fixtures/README.md)."""

from __future__ import annotations

import struct

import pytest
from fixtures import expand, expected_decoded, payload_bytes, sources

from mcp_msgpack.wire import ReceiveLimits, WireError, decode_payload, encode_frame, encode_payload

CASES = sources("cases")
REFUSALS = sources("refuse")
ACCEPTANCES = sources("accept")
BIN = ReceiveLimits(allow_bin=True)


def test_the_fixture_sets_are_there():
    assert len(CASES) >= 56 and len(REFUSALS) >= 25 and len(ACCEPTANCES) >= 6


@pytest.mark.parametrize("name,source,path", CASES, ids=[c[0] for c in CASES])
def test_case_encodes_to_its_frame(name, source, path):
    frame = path.with_suffix(".frame").read_bytes()
    assert encode_frame(expand(source["message"])) == frame


@pytest.mark.parametrize("name,source,path", CASES, ids=[c[0] for c in CASES])
def test_case_frame_decodes_to_its_message(name, source, path):
    frame = path.with_suffix(".frame").read_bytes()
    (length,) = struct.unpack(">I", frame[:4])
    assert length == len(frame) - 4
    expected = expected_decoded(expand(source.get("decoded", source["message"])))
    limits = BIN if source.get("allowBin") else None
    assert decode_payload(frame[4:], limits) == expected
    if source.get("allowBin"):
        with pytest.raises(WireError) as refused:
            decode_payload(frame[4:])
        assert (refused.value.code, refused.value.rule) == ("forbidden-type", "4.1.3")


@pytest.mark.parametrize("name,source,path", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusal(name, source, path):
    payload = payload_bytes(source)
    frame = path.with_suffix(".frame").read_bytes()
    assert frame == struct.pack(">I", len(payload)) + payload
    limits = BIN if source.get("allowBin") else None
    with pytest.raises(WireError) as refused:
        decode_payload(payload, limits)
    assert refused.value.code == source["code"]
    assert refused.value.rule == source["rule"]


@pytest.mark.parametrize("name,source,path", ACCEPTANCES, ids=[c[0] for c in ACCEPTANCES])
def test_acceptance(name, source, path):
    payload = payload_bytes(source)
    limits = BIN if source.get("allowBin") else None
    assert decode_payload(payload, limits) == expand(source["message"])


def test_an_encoded_payload_is_the_frame_without_its_header():
    message = {"jsonrpc": "2.0", "id": 1, "result": {"x": [1.0, -0.0, 2**64, float("nan"), "a\ud800"]}}
    assert encode_payload(message) == encode_frame(message)[4:]
    assert decode_payload(encode_payload(message)) == {"jsonrpc": "2.0", "id": 1, "result": {"x": [1, 0, float(2**64), None, "a\ufffd"]}}
