"""The integers msgpack-v1 carries exactly: those within +-(2^53-1), as JSON numbers in binary64 (SPEC 3.3)."""

from __future__ import annotations

MAX_SAFE_INTEGER = 2**53 - 1


def round_big_ints(value: object) -> object:
    """Ints beyond +-(2^53-1) become the nearest binary64 (SPEC 3.3), kept as Python ints since integral."""
    if type(value) is int:
        return int(float(value)) if value > MAX_SAFE_INTEGER or value < -MAX_SAFE_INTEGER else value
    if type(value) is dict:
        for key, item in value.items():
            if type(item) in (int, dict, list):
                value[key] = round_big_ints(item)
    elif type(value) is list:
        for index, item in enumerate(value):
            if type(item) in (int, dict, list):
                value[index] = round_big_ints(item)
    return value


def as_integer(value: object) -> object:
    """An integral float 64 (or 32) within +-(2^53-1) as the integer it is (SPEC 3.4: `7.0` is the JSON number
    7, which a JavaScript receiver cannot tell from `7`); any other value as it is."""
    if type(value) is float and value.is_integer() and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return int(value)
    return value
