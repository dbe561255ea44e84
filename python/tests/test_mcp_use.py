"""mcp-use (pinned in requirements-sdk-1.30.0.txt: its releases import only on mcp 1.x, run by
scripts/test-python-sdks.sh on that line) on our stdio transport: its `MCPClient` opens servers from a config
through its module's `stdio_client`, so the README's one line points that at `mcp_msgpack.stdio_client`
(frames only here, native bytes). The server is a high-level server under `mcp-msgpack-run`; the image tool,
called through mcp-use's session, comes back intact, having crossed the wire as bin."""

from __future__ import annotations

import base64
import functools
import sys
from pathlib import Path

import anyio
import pytest

from mcp_msgpack import call_tool_native, stdio_client

stdio_manager = pytest.importorskip("mcp_use.client.task_managers.stdio", reason="mcp-use imports on mcp 1.x only (requirements-sdk-1.30.0.txt)")
from mcp_use import MCPClient  # noqa: E402

HERE = Path(__file__).resolve().parent
RUN = Path(sys.executable).parent / "mcp-msgpack-run"


def test_mcp_use_lists_tools_and_reads_an_image_over_msgpack_with_native_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(HERE / "servers"))
    from highlevel_server import pattern

    # The README's line (a monkeypatch here, to leave the module as it was for other tests).
    monkeypatch.setattr(stdio_manager, "stdio_client", functools.partial(stdio_client, wire="msgpack", native_bytes=True))
    config = {"mcpServers": {"media": {"command": str(RUN), "args": ["--", str(HERE / "servers" / "highlevel_server.py")]}}}

    async def main() -> tuple[list[str], bytes, bytes, dict[str, object]]:
        client = MCPClient(config)
        try:
            session = await client.create_session("media")
            capabilities = session.connector.client_session.get_server_capabilities()
            names = sorted(tool.name for tool in await session.list_tools())
            result = await session.call_tool("picture", {"size": 40_000})
            native = await call_tool_native(session.connector.client_session, "picture", {"size": 40_000})
        finally:
            await client.close_all_sessions()
        return names, base64.b64decode(result.content[0].data), native.media[0].data, capabilities.experimental or {}

    names, image, direct, experimental = anyio.run(main)
    assert names == ["echo", "picture"]
    assert "mcp-msgpack/native-bytes" in experimental  # confirmed: media then cross as bin (SPEC 8)
    assert image == pattern(40_000) and direct == pattern(40_000)
