"""msgpack-v1 over MCP's Streamable HTTP (SPEC 9): the client transport and the server endpoint."""

from .client import MsgpackStreamableHTTPTransport, streamable_http_client
from .server_app import MsgpackStreamableHTTPSessionManager, streamable_http_app
from .server_transport import MsgpackStreamableHTTPServerTransport

__all__ = [
    "MsgpackStreamableHTTPServerTransport",
    "MsgpackStreamableHTTPSessionManager",
    "MsgpackStreamableHTTPTransport",
    "streamable_http_app",
    "streamable_http_client",
]
