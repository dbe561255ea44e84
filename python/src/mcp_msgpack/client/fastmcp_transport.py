"""FastMCP's Streamable HTTP client transport on msgpack-v1, for clients built on FastMCP (its `Client`, Pydantic
AI's `MCPToolset`). Needs `fastmcp`, which this package does not depend on: 4.x (on mcp 2.3+) or 2.x (on mcp 1.x).

    from fastmcp import Client
    from mcp_msgpack.client.fastmcp_transport import MsgpackStreamableHttpTransport

    async with Client(MsgpackStreamableHttpTransport(url, native_bytes=True)) as client: ...

The two FastMCP lines open a session differently, told apart by feature, not by version: FastMCP 4's
`connect_session` takes `transport_options` (its session class) and its transport builds httpx2 clients, and this
transport runs on the 2.3 client (`client/streamable_http.py`); FastMCP 2's takes the session's keyword arguments
only, forwards an incoming request's headers (`get_http_headers()`, for FastMCP proxies) and reads the session id
from the SDK's third stream, and this transport runs on the client of mcp 1.x (`client/streamable_http_httpx.py`).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncGenerator
from typing import Any

from fastmcp.client.transports import StreamableHttpTransport
from mcp.client.session import ClientSession
from mcp.shared._httpx_utils import create_mcp_http_client

from ..shared.http_client_wire import Wire
from ..shared.sdk_compat import require_http

SESSION_OPTIONS = "transport_options" in inspect.signature(StreamableHttpTransport.connect_session).parameters
"""True on FastMCP 4 (`connect_session(*, transport_options, **session_kwargs)`), False on FastMCP 2."""

if SESSION_OPTIONS:
    require_http("MsgpackStreamableHttpTransport")  # FastMCP 4's path needs the 2.3 client: a clear error without it
    from fastmcp.client.transports.base import TransportOptions
else:  # FastMCP 2.x: `fastmcp.client.transports` is one module, with no TransportOptions
    TransportOptions = None  # type: ignore[assignment,misc]


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
        opened = self._open_on_fastmcp_4(transport_options, session_kwargs) if SESSION_OPTIONS else self._open_on_fastmcp_2(session_kwargs)
        async with opened as session:
            yield session

    @contextlib.asynccontextmanager
    async def _open_on_fastmcp_4(
        self, transport_options: TransportOptions | None, session_kwargs: dict[str, Any]
    ) -> AsyncGenerator[ClientSession, None]:
        import httpx2

        from .streamable_http import streamable_http_client

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

    @contextlib.asynccontextmanager
    async def _open_on_fastmcp_2(self, session_kwargs: dict[str, Any]) -> AsyncGenerator[ClientSession, None]:
        """What FastMCP 2's own `connect_session` does, on this package's client."""
        from fastmcp.server.dependencies import get_http_headers

        from .streamable_http_httpx import httpx, streamable_http_client

        headers = get_http_headers() | dict(self.headers)
        read_timeout = session_kwargs.get("read_timeout_seconds")  # a timedelta on FastMCP 2
        timeout = httpx.Timeout(30.0, read=read_timeout.total_seconds()) if read_timeout is not None else None
        timeout_option = {"timeout": timeout} if timeout else {}
        factory: Any = self.httpx_client_factory  # FastMCP 2's factories take follow_redirects (mcp 1.x's type)
        if factory is not None:
            http_client = factory(headers=headers, auth=self.auth, follow_redirects=True, **timeout_option)
        else:
            http_client = create_mcp_http_client(headers=headers, timeout=timeout, auth=self.auth)
        async with (
            http_client,
            streamable_http_client(self.url, http_client=http_client, native_bytes=self.native_bytes, wire=self.wire) as streams,
        ):
            self._get_session_id_cb = streams[2]  # FastMCP 2's get_session_id() reads it
            async with ClientSession(streams[0], streams[1], **session_kwargs) as session:
                yield session

    def __repr__(self) -> str:
        return f"<MsgpackStreamableHttpTransport(url='{self.url}', wire='{self.wire}')>"
