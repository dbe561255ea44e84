"""Kept for compatibility with 0.1.0's module path (for one release): FastMCP's transport lives in
`mcp_msgpack.client.fastmcp_transport`."""

from ..client.fastmcp_transport import MsgpackStreamableHttpTransport

__all__ = ["MsgpackStreamableHttpTransport"]
