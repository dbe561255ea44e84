"""FastMCP's Streamable HTTP client transport on msgpack-v1, for clients built on FastMCP (its `Client`, Pydantic
AI's `MCPToolset`). Needs `fastmcp` (>= 4, on the SDK 2.x), which this package does not depend on.

    from fastmcp import Client
    from mcp_msgpack.client.fastmcp_transport import MsgpackStreamableHttpTransport

    async with Client(MsgpackStreamableHttpTransport(url, native_bytes=True)) as client: ...
"""

from __future__ import annotations

from ..shared.sdk_compat import require_http

require_http("MsgpackStreamableHttpTransport")  # before the SDK internals below: a clear error on an SDK without them

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

import httpx2
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.client.transports.base import TransportOptions
from mcp.client.session import ClientSession
from mcp.shared._httpx_utils import create_mcp_http_client

from ..shared.http_client_wire import Wire
from .streamable_http import streamable_http_client


class MsgpackStreamableHttpTransport(StreamableHttpTransport):
    """`fastmcp.client.transports.StreamableHttpTransport` with `native_bytes` and `wire` as
    `mcp_msgpack.streamable_http_client` takes them; URL, headers, auth (OAuth included) and
    `httpx_client_factory` as FastMCP takes them."""

    def __init__(self, url: Any, *args: Any, native_bytes: bool = False, wire: Wire = "auto", **kwargs: Any) -> None:
        super().__init__(url, *args, **kwargs)
        self.native_bytes = native_bytes
        self.wire = wire

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: TransportOptions | None = None, **session_kwargs: Any
    ) -> AsyncGenerator[ClientSession, None]:
        options = transport_options or TransportOptions()
        read_timeout = session_kwargs.get("read_timeout_seconds")
        timeout = httpx2.Timeout(30.0, read=read_timeout) if read_timeout is not None else None
        factory = self.httpx_client_factory or self._make_verify_factory()
        if factory is not None:
            http_client = factory(headers=dict(self.headers), auth=self.auth, **({"timeout": timeout} if timeout else {}))
        else:
            http_client = create_mcp_http_client(headers=dict(self.headers), timeout=timeout, auth=self.auth)
        self._session_id = None
        http_client.event_hooks.setdefault("response", []).append(self._capture_session_id)
        async with (
            http_client,
            streamable_http_client(
                self.url,
                http_client=http_client,
                native_bytes=self.native_bytes,
                wire=self.wire,
                max_sse_event_size=self.max_sse_event_size,
            ) as (read_stream, write_stream),
            options.session_class(read_stream, write_stream, **session_kwargs) as session,
        ):
            yield session

    def __repr__(self) -> str:
        return f"<MsgpackStreamableHttpTransport(url='{self.url}', wire='{self.wire}')>"
