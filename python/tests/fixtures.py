"""The golden fixtures (fixtures/ at the repository root) as Python values, by fixtures/README.md's notation."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def number(text: str) -> object:
    x = float(text)  # correctly rounded, ties to even, as JSON.parse
    return int(x) if x.is_integer() and -(2**63) <= x < 2**64 else x


def read_source(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"), parse_int=number, parse_float=number)


def expand(value: object) -> object:
    if isinstance(value, list):
        return [expand(item) for item in value]
    if isinstance(value, dict):
        keys = list(value)
        if keys == ["$bin"]:
            return bytes.fromhex(value["$bin"].replace(" ", ""))
        if keys == ["$binRepeat"]:
            return bytes.fromhex(value["$binRepeat"][0]) * value["$binRepeat"][1]
        if keys == ["$repeat"]:
            return value["$repeat"][0] * value["$repeat"][1]
        if keys == ["$array"]:
            return [expand(value["$array"][0]) for _ in range(value["$array"][1])]
        if keys == ["$map"]:
            prefix, count, item, *width = value["$map"]
            index = (lambda i: _base36(i, width[0])) if width else str
            return {f"{prefix}{index(i)}": expand(item) for i in range(count)}
        return {key: expand(item) for key, item in value.items()}
    return value


def expected_decoded(value: object) -> object:
    """What a receiver gets: lone surrogates became U+FFFD on the wire (surrogate pairs are characters)."""
    if isinstance(value, list):
        return [expected_decoded(item) for item in value]
    if isinstance(value, dict):
        return {expected_decoded(k): expected_decoded(v) for k, v in value.items()}
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _base36(i: int, width: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        out = digits[i % 36] + out
        i //= 36
        if i == 0:
            break
    return out.rjust(width, "0")


_TOKEN = re.compile(r"<i(?:([/%])(\d+))?:(\d+)>")


def _unit_at(unit: str, i: int) -> str:
    def token(match: re.Match) -> str:
        op, n, width = match.group(1), match.group(2), int(match.group(3))
        value = i if op is None else (i // int(n) if op == "/" else i % int(n))
        return _base36(value, width).encode("ascii").hex()

    return _TOKEN.sub(token, unit)


def payload_bytes(source: dict) -> bytes:
    if isinstance(source.get("payload"), str):
        return bytes.fromhex(source["payload"].replace(" ", ""))
    head, unit, count, tail = source["payloadRepeat"]
    units = "".join(_unit_at(unit, i) for i in range(count)) if "<" in unit else unit * count
    return bytes.fromhex((head + units + tail).replace(" ", ""))


def _all_sources(kind: str) -> list[tuple[str, dict, Path]]:
    folder = FIXTURES / kind
    return [(p.stem, read_source(p), p) for p in sorted(folder.glob("*.json"))]


def sources(kind: str) -> list[tuple[str, dict, Path]]:
    """The fixtures judged at the default limits: all but those whose source names a `budget` of their own
    (fixtures/README.md), which test_budget_prices.py runs under that budget, with every other edge fixture."""
    return [entry for entry in _all_sources(kind) if "budget" not in entry[1]]


def edge_sources(kind: str) -> list[tuple[str, dict, Path]]:
    """The edge fixtures of SPEC 4.1.9 (a source with `edge`): accept/ exactly at an allowance, refuse/ one past."""
    return [entry for entry in _all_sources(kind) if "edge" in entry[1]]
