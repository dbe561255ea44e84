"""Kept for compatibility with 0.1.0's module path (for one release): these live in
`mcp_msgpack.shared.message`, and are exported by `mcp_msgpack` itself."""

from .shared.message import from_session_message, to_session_message

__all__ = ["from_session_message", "to_session_message"]
