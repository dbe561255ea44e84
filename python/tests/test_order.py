"""SPEC 4.3: which fault a payload breaking several rules reports, and with which code."""

from __future__ import annotations

import pytest

from mcp_msgpack.wire import ReceiveLimits, WireError, decode_payload

BIN = ReceiveLimits(allow_bin=True)


def refused(payload: bytes, limits: ReceiveLimits | None = None) -> tuple[str, str]:
    with pytest.raises(WireError) as error:
        decode_payload(payload, limits)
    return error.value.code, error.value.rule


def test_a_bin_key_is_refused_by_4_1_3_not_as_a_non_string_key():
    # {data: 1, <bin "x">: 1}: the key after a data member is no member's value.
    payload = bytes.fromhex("82 a4 64617461 01 c4 01 78 01".replace(" ", ""))
    assert refused(payload, BIN) == ("forbidden-type", "4.1.3")
    assert refused(payload) == ("forbidden-type", "4.1.3")


def test_a_non_str_key_is_judged_at_its_first_byte():
    # {NaN: 1}: a float key is non-string-key, its NaN is never read.
    assert refused(bytes.fromhex("81cb7ff800000000000001")) == ("non-string-key", "4.1.4")
    # {<int 16 cut short>}: the key's missing bytes are not read either.
    assert refused(bytes.fromhex("81cd00")) == ("non-string-key", "4.1.4")


def test_a_bin_place_comes_before_its_length():
    # A bin 8 with its length byte missing, where native bytes are not in force.
    assert refused(bytes.fromhex("81a464617461c4")) == ("forbidden-type", "4.1.3")


def test_a_count_past_the_bytes_left_comes_before_the_depth():
    deep = bytes.fromhex("91") * 128 + bytes.fromhex("dc ffff".replace(" ", ""))
    assert refused(deep) == ("malformed-msgpack", "4.1.7")


def test_the_slot_word_comes_before_the_first_byte():
    # [ "x", <missing> ]: N = 3, so 6 + 3 = 9 words are allowed; the array (its slot 1, its object 7) and
    # "x" take 9, and the missing second item's slot is the 10th: over budget, not truncated.
    payload = bytes.fromhex("92a178")
    assert refused(payload, ReceiveLimits(word_base=6)) == ("over-budget", "4.1.9")
    assert refused(payload) == ("malformed-msgpack", "4.1.8")


def test_a_stray_bin_at_a_data_member_is_8_3_before_4_2():
    # {jsonrpc: "2.0", id: 1, junk: {data: bin}}: not JSON-RPC (a top-level junk) and a bin outside media.
    payload = bytes.fromhex("83a76a736f6e727063a3322e30a2696401a46a756e6b81a464617461c40101")
    assert refused(payload, BIN) == ("forbidden-type", "8.3")
    # Without the bin it is 4.2's.
    assert refused(bytes.fromhex("83a76a736f6e727063a3322e30a2696401a46a756e6b81a46461746101")) == ("not-json-rpc", "4.2")


def test_in_a_batch_8_3_looks_at_each_message_and_leaves_the_rest_to_4_2():
    from mcp_msgpack.wire.decode import check_decoded

    stray = {"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"junk": {"data": b"x"}}}
    with pytest.raises(WireError) as error:
        check_decoded([stray, "not a message"], 1, allow_batch=True)
    assert (error.value.code, error.value.rule, error.value.request_id) == ("forbidden-type", "8.3", 1)
    # A bin inside what is no message is 4.2's.
    with pytest.raises(WireError) as error:
        check_decoded([[{"data": b"x"}]], 1, allow_batch=True)
    assert (error.value.code, error.value.rule) == ("not-json-rpc", "4.2")
