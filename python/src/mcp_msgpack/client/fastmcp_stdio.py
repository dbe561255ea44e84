"""FastMCP's stdio client transport on msgpack-v1, beside the HTTP one (`fastmcp_transport.py`), for clients
built on FastMCP (its `Client`, Pydantic AI's `MCPToolset`). Needs `fastmcp`, which this package does not
depend on; works on every SDK line fastmcp runs on (stdio needs no SDK internals): fastmcp 2.x on mcp 1.x
and fastmcp 4.x on mcp 2.x are tested.

    from fastmcp import Client
    from mcp_msgpack.client.fastmcp_stdio import MsgpackStdioTransport

    async with Client(MsgpackStdioTransport("mcp-msgpack-run", ["--", "server.py"], native_bytes=True)) as client:
        ...

FastMCP's own `StdioTransport` keeps the subprocess alive between connections through a module-level call to
the SDK's `stdio_client`; this one spawns the server for each connection of the `Client` (each `async with`),
through `mcp_msgpack.stdio_client`, with the `wire`, `native_bytes`, `encoding` and `limits` it takes.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncGenerator
from typing import Any, TextIO

from fastmcp.client.transports import ClientTransport
from mcp import StdioServerParameters
from mcp.client.session import ClientSession

from ..wire import ReceiveLimits
from .stdio import stdio_client


class MsgpackStdioTransport(ClientTransport):
    """Runs `command args` and speaks MCP to it over stdio, in msgpack-v1 where the server speaks it."""

    def __init__(
        self,
        command: str,
        args: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        *,
        native_bytes: bool = True,
        wire: str = "auto",
        encoding: str = "cheapest-cpu",
        limits: ReceiveLimits | None = None,
        log_file: TextIO | None = None,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.env = env
        self.cwd = cwd
        self.native_bytes = native_bytes
        self.wire = wire
        self.encoding = encoding
        self.limits = limits
        self.log_file = log_file

    @contextlib.asynccontextmanager
    async def connect_session(
        self, *, transport_options: Any = None, **session_kwargs: Any
    ) -> AsyncGenerator[ClientSession, None]:
        # fastmcp 4 passes `transport_options` (its `session_class` is what proxies swap in); fastmcp 2 does not.
        session_class = getattr(transport_options, "session_class", None) or ClientSession
        params = StdioServerParameters(command=self.command, args=self.args, env=self.env, cwd=self.cwd)
        async with (
            stdio_client(
                params,
                self.log_file or sys.stderr,
                native_bytes=self.native_bytes,
                wire=self.wire,
                encoding=self.encoding,
                limits=self.limits,
            ) as (read_stream, write_stream),
            session_class(read_stream, write_stream, **session_kwargs) as session,
        ):
            yield session

    def __repr__(self) -> str:
        return f"<MsgpackStdioTransport(command='{self.command}', args={self.args!r}, wire='{self.wire}')>"


__all__ = ["MsgpackStdioTransport"]
