"""The server side: transports in place of the SDK's `mcp.server.stdio` and `mcp.server.streamable_http`, the
Streamable HTTP session manager and app, and the content blocks that carry bytes.

The Streamable HTTP names load on first use: on an SDK without the internals they reuse (`mcp` 1.x, 2.0-2.2)
the stdio side still imports, and using an HTTP name raises `SdkFeatureUnavailable` saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .native_content import native_audio, native_image
from .stdio import stdio_server

if TYPE_CHECKING:
    from .app import streamable_http_app
    from .streamable_http import MsgpackStreamableHTTPServerTransport
    from .streamable_http_manager import MsgpackStreamableHTTPSessionManager

_HTTP_NAMES = {
    "streamable_http_app": "app",
    "MsgpackStreamableHTTPServerTransport": "streamable_http",
    "MsgpackStreamableHTTPSessionManager": "streamable_http_manager",
}


def __getattr__(name: str) -> Any:
    module = _HTTP_NAMES.get(name)
    if module is not None:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MsgpackStreamableHTTPServerTransport",
    "MsgpackStreamableHTTPSessionManager",
    "native_audio",
    "native_image",
    "stdio_server",
    "streamable_http_app",
]
