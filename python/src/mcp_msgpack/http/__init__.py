"""Kept for compatibility with 0.1.0's module paths (for one release): the Streamable HTTP client transport
lives in `mcp_msgpack.client.streamable_http`, the server's in `mcp_msgpack.server.streamable_http` and
`mcp_msgpack.server.streamable_http_manager`; `streamable_http_client` and `streamable_http_app` are exported by
`mcp_msgpack` itself."""

from ..client.streamable_http import MsgpackStreamableHTTPTransport, streamable_http_client
from ..server.streamable_http import MsgpackStreamableHTTPServerTransport
from ..server.app import streamable_http_app
from ..server.streamable_http_manager import MsgpackStreamableHTTPSessionManager

__all__ = [
    "MsgpackStreamableHTTPServerTransport",
    "MsgpackStreamableHTTPSessionManager",
    "MsgpackStreamableHTTPTransport",
    "streamable_http_app",
    "streamable_http_client",
]
