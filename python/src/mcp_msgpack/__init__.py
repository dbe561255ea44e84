"""msgpack-v1 transports for the official MCP Python SDK: swap one import, keep the SDK.

    from mcp_msgpack import stdio_client   # instead of mcp.client.stdio.stdio_client
    from mcp_msgpack import stdio_server   # instead of mcp.server.stdio.stdio_server
    from mcp_msgpack import streamable_http_client  # instead of mcp.client.streamable_http.streamable_http_client
    from mcp_msgpack import streamable_http_app     # instead of server.streamable_http_app()

The modules follow the SDK's: `client/stdio.py`, `client/streamable_http.py`, `server/stdio.py`,
`server/streamable_http.py`, ...; `shared/` holds what both sides use, `wire/` the msgpack-v1 codec.
"""

from .client import call_tool_native, stdio_client, streamable_http_client
from .server import native_audio, native_image, stdio_server, streamable_http_app
from .shared.message import from_session_message, to_session_message
from .wire import ReceiveLimits, WireError

__all__ = [
    "ReceiveLimits",
    "WireError",
    "call_tool_native",
    "native_audio",
    "native_image",
    "from_session_message",
    "stdio_client",
    "stdio_server",
    "streamable_http_app",
    "streamable_http_client",
    "to_session_message",
]
