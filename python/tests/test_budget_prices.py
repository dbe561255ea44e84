"""SPEC 4.1.9's edges, from the golden fixtures (fixtures/accept/edge-* and fixtures/refuse/edge-*,
fixtures/README.md): for each allowance (words, containers, short keys, shapes) and each priced value (an
array, a map, a bin at a media field, a str of 2 to 15 bytes), a payload exactly at the allowance, which
must decode to its message, and the same payload one unit past it, which must be refused as over-budget.
Each is judged under the budget its source names (the default where it names none), with this receiver's
CPython heap bound (SPEC 4.1.9, a runtime's own heap) lifted so that SPEC's budget alone decides; test_golden.py runs the
default-budget ones at this receiver's default limits too."""

from __future__ import annotations

import pytest
from fixtures import edge_sources, expand, payload_bytes

from mcp_msgpack.wire import ReceiveLimits, WireError, decode_value, guard_payload

ACCEPT = edge_sources("accept")
REFUSE = edge_sources("refuse")
# SPEC's budget setting -> this receiver's ReceiveLimits fields (base, rate).
SETTINGS = {
    "containers": ("container_base", "bytes_per_container"),
    "keysAndShapes": ("key_base", "bytes_per_key"),
    "words": ("word_base", "bytes_per_word"),
}


def limits_for(source: dict) -> ReceiveLimits:
    fields = {"allow_bin": bool(source.get("allowBin")), "heap_base": 1 << 40}
    for setting, allowance in source.get("budget", {}).items():
        base, rate = SETTINGS[setting]
        fields[base] = allowance["base"]
        fields[rate] = allowance["rate"]
    return ReceiveLimits(**fields)


def test_every_allowance_has_a_pair():
    assert [(name, source["edge"]) for name, source, _ in ACCEPT] == [(name, source["edge"]) for name, source, _ in REFUSE]
    assert {source["edge"] for _, source, _ in ACCEPT} == {"words", "containers", "shortKeys", "shapes"}


@pytest.mark.parametrize("name,source,path", ACCEPT, ids=[c[0] for c in ACCEPT])
def test_exactly_at_the_edge_is_accepted(name, source, path):
    payload = payload_bytes(source)
    assert path.with_suffix(".frame").read_bytes()[4:] == payload
    assert decode_value(payload, limits_for(source)) == expand(source["message"])


@pytest.mark.parametrize("name,source,path", REFUSE, ids=[c[0] for c in REFUSE])
def test_one_past_the_edge_is_refused(name, source, path):
    payload = payload_bytes(source)
    assert path.with_suffix(".frame").read_bytes()[4:] == payload
    with pytest.raises(WireError) as error:
        guard_payload(payload, limits_for(source))
    assert (error.value.code, error.value.rule) == (source["code"], source["rule"]) == ("over-budget", "4.1.9")
