"""The client side: transports in place of the SDK's `mcp.client.stdio` and `mcp.client.streamable_http`, and
`call_tool_native`. FastMCP's transport is `mcp_msgpack.client.fastmcp_transport` (it needs `fastmcp`).

The Streamable HTTP names load on first use: on an SDK without the internals they reuse (`mcp` 1.x, 2.0-2.2)
the stdio side still imports, and using an HTTP name raises `SdkFeatureUnavailable` saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .native_call import NativeCallToolResult, call_tool_native
from .stdio import stdio_client

if TYPE_CHECKING:
    from .streamable_http import MsgpackStreamableHTTPTransport, streamable_http_client

_HTTP_NAMES = ("MsgpackStreamableHTTPTransport", "streamable_http_client")


def __getattr__(name: str) -> Any:
    if name in _HTTP_NAMES:
        from . import streamable_http

        return getattr(streamable_http, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MsgpackStreamableHTTPTransport", "NativeCallToolResult", "call_tool_native", "stdio_client", "streamable_http_client"]
