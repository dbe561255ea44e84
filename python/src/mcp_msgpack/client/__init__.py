"""The client side: transports in place of the SDK's `mcp.client.stdio` and `mcp.client.streamable_http`, and
`call_tool_native`. FastMCP's transport is `mcp_msgpack.client.fastmcp_transport` (it needs `fastmcp`).

The Streamable HTTP names load on first use, from the module the installed SDK can carry (feature detection,
`shared/sdk_compat.py`): `streamable_http.py` subclasses mcp 2.3's own transport; on the lines without those
internals (`mcp` 1.24-1.x, 2.0-2.2) `streamable_http_httpx.py` speaks the same wire on the SDK's public names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..shared.sdk_compat import HTTP_UNAVAILABLE
from .native_call import NativeCallToolResult, call_tool_native
from .stdio import stdio_client

if TYPE_CHECKING:
    from .streamable_http import MsgpackStreamableHTTPTransport, streamable_http_client


def http_client_module() -> Any:
    """The Streamable HTTP client module for the installed SDK: the 2.3 subclass where its internals are
    there, else the one on the older lines' public API."""
    if HTTP_UNAVAILABLE is None:
        from . import streamable_http

        return streamable_http
    from . import streamable_http_httpx

    return streamable_http_httpx


_HTTP_NAMES = ("MsgpackStreamableHTTPTransport", "streamable_http_client")


def __getattr__(name: str) -> Any:
    if name in _HTTP_NAMES:
        return getattr(http_client_module(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MsgpackStreamableHTTPTransport", "NativeCallToolResult", "call_tool_native", "stdio_client", "streamable_http_client"]
