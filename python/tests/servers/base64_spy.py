"""Counts the base64 a test server process makes or reads (issue 39: none on the MessagePack path).

`register(server)` adds a `base64_calls` tool answering how many calls every base64 encoder and decoder this
process could use (the stdlib's `base64` and `binascii`, `pybase64`, and the names `mcp_msgpack` imported)
has had so far; a test reads it before and after a call."""

from __future__ import annotations

import base64
import binascii
import functools
import sys

CALLS = [0]


def _counted(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        CALLS[0] += 1
        return function(*args, **kwargs)

    return wrapper


def _patch(module, names) -> None:
    for name in names:
        if hasattr(module, name):
            setattr(module, name, _counted(getattr(module, name)))


def install() -> None:
    from mcp_msgpack.shared import media_conversion

    _patch(media_conversion, ["b64encode", "b64decode"])
    _patch(base64, ["b64encode", "b64decode", "standard_b64encode", "standard_b64decode"])
    _patch(binascii, ["b2a_base64", "a2b_base64"])
    pybase64 = sys.modules.get("pybase64")
    if pybase64 is not None:
        _patch(pybase64, ["b64encode", "b64decode", "standard_b64encode", "standard_b64decode", "b64decode_as_bytearray"])


def register(server) -> None:
    install()

    @server.tool()
    def base64_calls() -> int:
        """How many base64 encodes and decodes this process has made so far."""
        return CALLS[0]
