"""The server side: transports in place of the SDK's `mcp.server.stdio` and `mcp.server.streamable_http`, the
Streamable HTTP session manager and app, and the content blocks that carry bytes.

The Streamable HTTP names load on first use: on an SDK without the internals they reuse (`mcp` 1.x)
the stdio side still imports, and using an HTTP name raises `SdkFeatureUnavailable` saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..shared.lazy_names import lazy_getattr
from .native_content import native_audio, native_image
from .stdio import stdio_server

if TYPE_CHECKING:
    from .app import streamable_http_app
    from .streamable_http import MsgpackStreamableHTTPServerTransport
    from .streamable_http_manager import MsgpackStreamableHTTPSessionManager

__getattr__ = lazy_getattr(
    __name__,
    {
        "streamable_http_app": "app",
        "MsgpackStreamableHTTPServerTransport": "streamable_http",
        "MsgpackStreamableHTTPSessionManager": "streamable_http_manager",
    },
)


__all__ = [
    "MsgpackStreamableHTTPServerTransport",
    "MsgpackStreamableHTTPSessionManager",
    "native_audio",
    "native_image",
    "stdio_server",
    "streamable_http_app",
]
