"""Which HTTP request offers native bytes (SPEC 8.1): `initialize`'s capabilities, or a 2026-07-28 request's
client capabilities in `_meta` (rules 1 and 4; the stdio client makes its per-request offers by these names too). The extension's entry itself is `shared/extension.py`'s."""

from __future__ import annotations

from typing import Any

from .extension import announce, announced_version

CLIENT_CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
FIRST_MODERN_REVISION = "2026-07-28"


def is_modern_request(meta: Any) -> bool:
    """Whether a request's `_meta` is a 2026-07-28 (or later) envelope: its native-bytes offer is then per
    request (SPEC 8.1 rules 4-7), on stdio as on HTTP. Revisions are dates, compared as the TS side does."""
    version = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
    return isinstance(version, str) and version >= FIRST_MODERN_REVISION


def offers(capabilities: Any) -> bool:
    version = announced_version(capabilities)
    return version is not None and version >= 1


def confirms(capabilities: Any) -> bool:
    return announced_version(capabilities) == 1


def request_offers(message: dict[str, Any]) -> bool:
    params = message.get("params")
    if not isinstance(params, dict):
        return False
    if message.get("method") == "initialize":
        return offers(params.get("capabilities"))
    meta = params.get("_meta")
    return isinstance(meta, dict) and offers(meta.get(CLIENT_CAPABILITIES_META))


def offer_in(body: dict[str, Any]) -> bool:
    """Add the offer to a request about to be sent on msgpack-v1; whether it could carry one."""
    params = body.get("params")
    if not isinstance(params, dict):
        return False
    if body.get("method") == "initialize":
        params["capabilities"] = announce(params.get("capabilities") or {})
        return True
    meta = params.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get(CLIENT_CAPABILITIES_META), dict):
        meta[CLIENT_CAPABILITIES_META] = announce(meta[CLIENT_CAPABILITIES_META])
        return True
    return False


def confirm_in(result: dict[str, Any]) -> None:
    """Confirm (initialize) or advertise (server/discover) the extension in a result's capabilities."""
    result["capabilities"] = announce(result.get("capabilities") or {})
