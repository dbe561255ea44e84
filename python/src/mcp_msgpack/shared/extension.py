"""The native-bytes extension's names and its capability entry (SPEC 8.1): how a side announces it, and how
the other reads the announcement."""

from __future__ import annotations

from typing import Any

EXTENSION = "io.github.mcp-msgpack/native-bytes"
LEGACY_EXPERIMENTAL = "mcp-msgpack/native-bytes"  # 0.1.0's key under capabilities.experimental
ENTRY = {"version": 1}
# Where a request asks its transport to hand the result's media over as bytes (call_tool_native): a private
# _meta member the transport removes before the message leaves the process.
NATIVE_RESULT_META = "mcp-msgpack/native-result"


def announced_version(capabilities: object) -> int | None:
    """The extension's version in `capabilities` read as SPEC 8.1 says: `extensions` first, and when it holds
    an entry that entry alone decides; else `experimental`. None when not announced (or malformed)."""
    if not isinstance(capabilities, dict):
        return None
    extensions = capabilities.get("extensions")
    if isinstance(extensions, dict) and EXTENSION in extensions:
        entry = extensions[EXTENSION]
    else:
        experimental = capabilities.get("experimental")
        if not isinstance(experimental, dict) or LEGACY_EXPERIMENTAL not in experimental:
            return None
        entry = experimental[LEGACY_EXPERIMENTAL]
    version = entry.get("version") if isinstance(entry, dict) else None
    return version if type(version) is int else None


def announce(capabilities: dict[str, Any]) -> dict[str, Any]:
    """A copy of `capabilities` announcing the extension under both keys (SPEC 8.1)."""
    out = dict(capabilities)
    out["extensions"] = {**(out.get("extensions") or {}), EXTENSION: dict(ENTRY)}
    out["experimental"] = {**(out.get("experimental") or {}), LEGACY_EXPERIMENTAL: dict(ENTRY)}
    return out
