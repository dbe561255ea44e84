"""What a FastMCP user needs, in one import: `http_app(mcp)` (a FastMCP server's Streamable HTTP app on
msgpack-v1, `server/fastmcp_app.py`) and the two client transports for FastMCP's `Client`,
`MsgpackStreamableHttpTransport` (`client/fastmcp_transport.py`) and `MsgpackStdioTransport`
(`client/fastmcp_stdio.py`). Needs `fastmcp`, which this package does not depend on.

The names load on first use: `MsgpackStdioTransport` works on every SDK line (fastmcp 2.x on mcp 1.x too);
the HTTP names need mcp 2.3+ and raise `SdkFeatureUnavailable` saying why on an older SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .shared.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from .client.fastmcp_stdio import MsgpackStdioTransport
    from .client.fastmcp_transport import MsgpackStreamableHttpTransport
    from .server.fastmcp_app import http_app

__getattr__ = lazy_getattr(
    "mcp_msgpack",
    {
        "http_app": "server.fastmcp_app",
        "MsgpackStreamableHttpTransport": "client.fastmcp_transport",
        "MsgpackStdioTransport": "client.fastmcp_stdio",
    },
)


__all__ = ["MsgpackStdioTransport", "MsgpackStreamableHttpTransport", "http_app"]
