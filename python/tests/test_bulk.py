"""The bulk path (wire/bulk.py) accepts only what the exact guard accepts, builds the same value, keeps every
refusal the exact guard's, and holds the amplification bound (16x) on the hostile shapes."""

from __future__ import annotations

import gc
import random
import tracemalloc

import pytest
from fixtures import payload_bytes, sources
from hostile import ALL, payload

from mcp_msgpack.wire import ReceiveLimits, WireError, decode_payload, encode_payload
from mcp_msgpack.wire.bulk import bulk_decode
from mcp_msgpack.wire.decode import HANDOFF_WORDS, build, decode_counting_bins
from mcp_msgpack.wire.guard import guard_payload

MIB = 1024 * 1024
PLAIN = ReceiveLimits()
BIN = ReceiveLimits(allow_bin=True)


def _exact(data: bytes, limits: ReceiveLimits) -> tuple[object, int] | WireError:
    try:
        result = guard_payload(data, limits)
    except WireError as error:
        return error
    return build(data, result.big_ints), result.bins


def _agrees(data: bytes, limits: ReceiveLimits) -> bool:
    """The bulk path says "cannot tell", or what the exact guard and build give. Returns whether it told."""
    told = bulk_decode(data, limits)
    if told is None:
        return False
    exact = _exact(data, limits)
    assert not isinstance(exact, WireError), f"bulk accepted what the guard refuses: {exact}"
    assert told == exact
    return True


def _records(count: int, extra: dict | None = None) -> dict:
    rows = [{"name": f"file-{i}.txt", "size": i * 37, "modified": "2026-11-26T12:00:00Z", "dir": i % 5 == 0} for i in range(count)]
    result = {"content": [{"type": "text", "text": f"{count} entries"}], "structuredContent": {"entries": rows, **(extra or {})}}
    return {"jsonrpc": "2.0", "id": 7, "result": result}


SEEDS = [
    encode_payload(_records(800)),
    encode_payload(_records(60, {"ratio": 0.25, "big": 2**60, "neg": -(2**40), "deep": [[[{"a": [1.5, None]}]]]})),
    encode_payload({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "image", "mimeType": "image/png", "data": bytes(range(256))}] * 40}}),
    encode_payload({"jsonrpc": "2.0", "id": "q", "method": "tools/call", "params": {"name": "t", "arguments": {"rows": list(range(-40, 300))}}}),
]


def test_a_many_valued_result_is_decoded_by_the_bulk_path_as_the_exact_guard_decodes_it():
    assert _agrees(SEEDS[0], PLAIN)
    assert _agrees(SEEDS[1], PLAIN)  # floats, 64-bit ints (rounded as SPEC 3.3 says), nesting
    assert _agrees(SEEDS[2], BIN)  # bins at data members, native bytes in force
    assert _agrees(SEEDS[3], PLAIN)


def test_every_fixture_is_decided_as_the_exact_guard_decides_it():
    for kind in ("cases", "accept", "refuse"):
        for name, source, path in sources(kind):
            data = path.with_suffix(".frame").read_bytes()[4:] if kind == "cases" else payload_bytes(source)
            for limits in (PLAIN, BIN):
                try:
                    _agrees(data, limits)
                except AssertionError as error:
                    raise AssertionError(f"{kind}/{name}: {error}") from None


def _mutations(seed: bytes, rng: random.Random):
    for _ in range(150):
        data = bytearray(seed)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            roll = rng.random()
            if roll < 0.6:
                data[at] = rng.randrange(256)
            elif roll < 0.8:
                data.insert(at, rng.randrange(256))
            else:
                del data[at]
        yield bytes(data)
    yield seed[: rng.randrange(1, len(seed))]
    yield seed + b"\xc0"


def test_mutated_payloads_are_never_accepted_where_the_exact_guard_refuses():
    rng = random.Random(29)
    told = 0
    for seed in SEEDS:
        for data in _mutations(seed, rng):
            for limits in (PLAIN, BIN):
                told += _agrees(data, limits)
    assert told > 100  # most single-byte changes inside strings leave a payload the bulk path still tells


def test_a_repeated_key_goes_to_the_exact_guard():
    # {"jsonrpc", "id", "result": NaN, "result": <800 records>}: a dict keeps only the second "result", so
    # the NaN the guard refuses would be hidden from any check on the built value.
    head = encode_payload({"jsonrpc": "2.0", "id": 7})
    records = encode_payload(_records(800)["result"])
    repeated = b"\x84" + head[1:] + b"\xa6result\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00\xa6result" + records
    assert bulk_decode(repeated, PLAIN) is None
    with pytest.raises(WireError) as refused:
        decode_payload(repeated)
    assert (refused.value.code, refused.value.rule, refused.value.request_id) == ("non-finite-number", "4.1.10", 7)


def test_refusals_after_the_handoff_are_the_exact_guards():
    rows = encode_payload(_records(200))
    assert len(rows) > 4 * HANDOFF_WORDS  # far more budget words than the handoff: the bulk path is tried first
    cases = {
        b"\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00": ("non-finite-number", "4.1.10"),
        b"\xc1": ("forbidden-type", "4.1.2"),
        b"\xd4\x01\x00": ("forbidden-type", "4.1.1"),
        b"\xc4\x01\x00": ("forbidden-type", "4.1.3"),
    }
    for tail, (code, rule) in cases.items():
        # The records' last value ("dir": false) replaced by the bad one.
        assert rows[-1:] == b"\xc2"
        data = rows[:-1] + tail
        with pytest.raises(WireError) as refused:
            decode_counting_bins(data, PLAIN)
        assert (refused.value.code, refused.value.rule, refused.value.request_id) == (code, rule, 7)
    with pytest.raises(WireError) as refused:
        decode_counting_bins(rows + b"\xc0", PLAIN)
    assert (refused.value.code, refused.value.rule) == ("malformed-msgpack", "4.1.8")
    with pytest.raises(WireError) as refused:
        decode_counting_bins(rows[:-1], PLAIN)
    assert refused.value.code == "malformed-msgpack"


def _bulk_peak(data: bytes) -> tuple[float, bool]:
    """Peak traced memory of the bulk path on `data`, against its size, and whether it told."""
    gc.collect()
    tracemalloc.start()
    told = bulk_decode(data, PLAIN)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / len(data), told is not None


@pytest.mark.timeout(600)
@pytest.mark.parametrize("size", [MIB, 4 * MIB])
def test_no_hostile_shape_costs_more_than_16x_through_the_bulk_path(size):
    """Each shape at full density (what the bulk path declines goes to the exact guard: test_hostile)."""
    ratios = {}
    for shape in ALL:
        unit = len(payload(shape, 1, 0)) - len(payload(shape, 0, 0))
        ratio, told = _bulk_peak(payload(shape, size // unit, size))
        ratios[shape] = (round(ratio, 1), told)
    assert all(ratio <= 16 for ratio, _ in ratios.values()), ratios
    # The dense shapes the exact guard accepts (test_hostile) are the ones the bulk path may take.
    assert {shape for shape, (_, told) in ratios.items() if told} <= {"nil", "float", "int16"}, ratios
