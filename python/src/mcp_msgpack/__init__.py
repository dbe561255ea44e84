"""msgpack-v1 transports for the official MCP Python SDK (`mcp` 1.24+ and 2.x): swap one import, keep the SDK.

    from mcp_msgpack import stdio_client   # instead of mcp.client.stdio.stdio_client
    from mcp_msgpack import stdio_server   # instead of mcp.server.stdio.stdio_server
    from mcp_msgpack import streamable_http_client  # instead of mcp.client.streamable_http.streamable_http_client
    from mcp_msgpack import streamable_http_app     # instead of server.streamable_http_app()

The modules follow the SDK's: `client/stdio.py`, `client/streamable_http.py`, `server/stdio.py`,
`server/streamable_http.py`, ...; `shared/` holds what both sides use, `wire/` the msgpack-v1 codec. The
differences between SDK lines are all in `shared/sdk_compat.py`. `streamable_http_client` works on every line
(`client/streamable_http_httpx.py` before mcp 2.3); `streamable_http_app` needs mcp 2.x (`SdkFeatureUnavailable`
on 1.x, raised when it is first used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .client import NativeCallToolResult, call_tool_native, stdio_client
from .server import native_audio, native_image, stdio_server
from .shared.message import from_session_message, to_session_message
from .shared.sdk_compat import SDK_VERSION, SdkFeatureUnavailable
from .wire import ReceiveLimits, WireError

if TYPE_CHECKING:
    from .client.streamable_http import streamable_http_client
    from .server.app import streamable_http_app


def __getattr__(name: str) -> Any:
    if name == "streamable_http_client":
        from .client import http_client_module

        return http_client_module().streamable_http_client
    if name == "streamable_http_app":
        from .server.app import streamable_http_app

        return streamable_http_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NativeCallToolResult",
    "ReceiveLimits",
    "SDK_VERSION",
    "SdkFeatureUnavailable",
    "WireError",
    "__version__",
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
