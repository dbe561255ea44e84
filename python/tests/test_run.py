"""`mcp-msgpack-run` on servers written with the SDK's high-level API of either line (`MCPServer` on 2.x,
`mcp.server.fastmcp.FastMCP` on 1.x), served by their own `server.run()`: our client on msgpack-v1 frames only
(`wire='msgpack'`: a JSON-only server would never answer) gets the tools and an image as bytes. And a target
that never calls `stdio_server()` is named on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters

from mcp_msgpack import call_tool_native, stdio_client
from mcp_msgpack.shared.sdk_compat import SDK_VERSION

HERE = Path(__file__).resolve().parent
TARGET = HERE / "servers" / "highlevel_server.py"
RUN = Path(sys.executable).parent / "mcp-msgpack-run"


def test_a_high_level_sdk_server_runs_on_msgpack_frames_through_mcp_msgpack_run():
    sys.path.insert(0, str(HERE / "servers"))
    from highlevel_server import pattern

    async def main() -> tuple[list[str], bytes, str]:
        params = StdioServerParameters(command=str(RUN), args=["--", str(TARGET)])
        async with stdio_client(params, wire="msgpack", native_bytes=True) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = sorted(tool.name for tool in (await session.list_tools()).tools)
                image = (await call_tool_native(session, "picture", {"size": 70_000})).media[0].data
                echo = (await session.call_tool("echo", {"text": "héllo"})).content[0]
                assert isinstance(echo, __import__("mcp.types").types.TextContent)
                return tools, image, echo.text

    tools, image, echo = anyio.run(main)
    assert tools == ["echo", "picture"], SDK_VERSION
    assert image == pattern(70_000)
    assert echo == "héllo"


def test_a_server_with_its_own_stdio_loop_is_named_on_stderr():
    done = subprocess.run([str(RUN), "--", str(TARGET), "--own-loop"], input=b"", capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert b"never called mcp.server.stdio.stdio_server()" in done.stderr
    assert b"spoke the SDK's JSON lines, not msgpack-v1" in done.stderr


def test_version():
    done = subprocess.run([str(RUN), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    import mcp_msgpack

    assert done.stdout.strip() == f"mcp-msgpack-run {mcp_msgpack.__version__} (mcp {SDK_VERSION})"


def test_a_fastmcp_server_runs_on_msgpack_frames_through_mcp_msgpack_run():
    """FastMCP (the `fastmcp` package: 4.1.6 on mcp 2.3.0, 2.14.7 on mcp 1.30.0; not installed on the other lines)."""
    import pytest

    pytest.importorskip("fastmcp", reason="fastmcp is pinned for mcp 2.3.0 (4.1.6) and 1.30.0 (2.14.7) only")
    target = HERE / "servers" / "fastmcp_server.py"

    async def main() -> tuple[list[str], str]:
        params = StdioServerParameters(command=str(RUN), args=["--", str(target)])
        async with stdio_client(params, wire="msgpack") as (read, write):  # frames only: JSON would never answer
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = [tool.name for tool in (await session.list_tools()).tools]
                echo = (await session.call_tool("echo", {"text": "frames"})).content[0]
                return tools, getattr(echo, "text", "")

    tools, echo = anyio.run(main)
    assert tools == ["echo"]
    assert echo == "frames"


def test_fastmcps_client_on_our_stdio_transport_reads_an_image_as_bytes():
    """FastMCP's `Client` on `MsgpackStdioTransport` (frames only), the server of the SDK's high-level API
    through mcp-msgpack-run: tools listed by FastMCP, the image read as bytes on the session it opened."""
    import pytest

    pytest.importorskip("fastmcp", reason="fastmcp is pinned for mcp 2.3.0 (4.1.6) and 1.30.0 (2.14.7) only")
    from fastmcp import Client

    from mcp_msgpack.client.fastmcp_stdio import MsgpackStdioTransport

    sys.path.insert(0, str(HERE / "servers"))
    from highlevel_server import pattern

    async def main() -> tuple[list[str], bytes]:
        transport = MsgpackStdioTransport(str(RUN), ["--", str(TARGET)], wire="msgpack", native_bytes=True)
        async with Client(transport) as client:
            tools = sorted(tool.name for tool in await client.list_tools())
            image = (await call_tool_native(client.session, "picture", {"size": 50_000})).media[0].data
            return tools, image

    tools, image = anyio.run(main)
    assert tools == ["echo", "picture"]
    assert image == pattern(50_000)
