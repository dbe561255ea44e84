"""SPEC 8.3 on receipt: each bin of a payload must stand at a media field of 8.2 in its message."""

from __future__ import annotations

from typing import Any

from .errors import WireError
from .media_slots import media_slots


def _bins_within(value: object) -> int:
    """How many bins (bytes) stand anywhere in `value`."""
    if isinstance(value, bytes):
        return 1
    if isinstance(value, dict):
        return sum(_bins_within(item) for item in value.values())
    if isinstance(value, list):
        return sum(_bins_within(item) for item in value)
    return 0


def _media_bins(message: dict[str, Any]) -> int:
    return sum(1 for holder, key in media_slots(message) if isinstance(holder.get(key), bytes))


def outside_media(message: dict[str, Any]) -> WireError:
    """The 8.3 refusal of `message`, with its id when it has one (SPEC 5.2)."""
    error = WireError("forbidden-type", "8.3", "a bin outside the media fields of SPEC 8.2")
    if "id" in message:
        error.with_id(message["id"], "request" if "method" in message else "response")
    return error


def check_bin_places(value: object, bins: int) -> None:
    """SPEC 8.3 on a decoded value that held `bins` bins (4.1.3 let each through at a data or blob member):
    each must stand at a media field of 8.2 in its message. Raises WireError forbidden-type, rule 8.3. A map
    is one message, an array a batch of them (SPEC 9.4); what is not a map is no message, and is left to
    4.2, which comes after this check (SPEC 4.3 step 4)."""
    if not bins:
        return
    if isinstance(value, dict):
        if _media_bins(value) != bins:
            raise outside_media(value)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and _media_bins(item) != _bins_within(item):
                raise outside_media(item)
