"""Kept for compatibility with 0.1.0's module path (for one release): `stdio_server` lives in
`mcp_msgpack.server.stdio`, and is exported by `mcp_msgpack` itself."""

from .server.stdio import stdio_server

__all__ = ["stdio_server"]
