"""The server side: transports in place of the SDK's `mcp.server.stdio` and `mcp.server.streamable_http`, the
Streamable HTTP session manager and app, and the content blocks that carry bytes."""

from .app import streamable_http_app
from .native_content import native_audio, native_image
from .stdio import stdio_server
from .streamable_http import MsgpackStreamableHTTPServerTransport
from .streamable_http_manager import MsgpackStreamableHTTPSessionManager

__all__ = [
    "MsgpackStreamableHTTPServerTransport",
    "MsgpackStreamableHTTPSessionManager",
    "native_audio",
    "native_image",
    "stdio_server",
    "streamable_http_app",
]
