"""The MCP dictionary coding (SPEC 10.5, `mcp-dict-v1`; the TS side's content-coding/mcp-dictionary.ts): raw deflate
(RFC 1951, no zlib or gzip wrapper) with a preset dictionary of MCP message skeletons, for one-body replies too small
for a coding of their own to pay.

The dictionary's bytes are `mcp-dictionary-v1.bin` beside this module, a copy of the repository's
fixtures/dictionary/mcp-dictionary-v1.bin (a test holds them equal). They never change: a new dictionary is a new
token, so the token alone names them and nothing else is sent for it on a request or a reply."""

from __future__ import annotations

import zlib
from functools import cache
from importlib import resources
from typing import Literal

MCP_DICTIONARY_CODING: Literal["mcp-dict-v1"] = "mcp-dict-v1"

DICTIONARY_MIN_BYTES = 96
"""Replies from this size go in the dictionary coding: a 157-byte reply codes to about 50 bytes, where the token's
`Content-Encoding` header costs 31 (the TS side's figure)."""

DICTIONARY_MAX_BYTES = 4096
"""Replies under this many bytes may go in the dictionary coding; larger ones code well in zstd, br or gzip."""

DICTIONARY_LEVEL = 6
"""The deflate level the TS side codes it at (node:zlib's default)."""


@cache
def mcp_dictionary_v1() -> bytes:
    """The dictionary's bytes (2,353), read once from the package's copy."""
    return (resources.files("mcp_msgpack.shared") / "mcp-dictionary-v1.bin").read_bytes()


def in_dictionary_range(size: int) -> bool:
    """Whether a one-body reply of `size` bytes goes in the dictionary coding where the client takes it."""
    return DICTIONARY_MIN_BYTES <= size < DICTIONARY_MAX_BYTES


def encode_with_dictionary(data: bytes) -> bytes:
    """`data` coded whole in `mcp-dict-v1`."""
    compressor = zlib.compressobj(DICTIONARY_LEVEL, zlib.DEFLATED, -15, zdict=mcp_dictionary_v1())
    return compressor.compress(data) + compressor.flush()


def dictionary_decompressor() -> zlib._Decompress:
    """A raw inflater with the dictionary preset: decodes `mcp-dict-v1` (SPEC 10.5 rule 3)."""
    return zlib.decompressobj(-15, zdict=mcp_dictionary_v1())
