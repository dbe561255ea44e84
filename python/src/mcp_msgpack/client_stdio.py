"""Kept for compatibility with 0.1.0's module path (for one release): `stdio_client` lives in
`mcp_msgpack.client.stdio`, and is exported by `mcp_msgpack` itself."""

from .client.stdio import stdio_client

__all__ = ["stdio_client"]
