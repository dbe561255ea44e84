"""python/README.md runs as pasted: every ```python block is a complete program (first line `# name.py`, it
compiles as a module, so no top-level `await`/`async with`), and each is run: the stdio client starting the
server block through `mcp-msgpack-run`, and the HTTP client blocks against the HTTP server block (the only
change: its port 8080 becomes a free one). The blocks run with this suite's interpreter and its environment's
console scripts (the packages they import are in requirements-test.txt)."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_msgpack.shared.sdk_compat import HTTP_UNAVAILABLE, SESSION_LOOP_SERVER

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = {
    match.group(1).split("\n", 1)[0].split(":", 1)[0].lstrip("# ").strip(): match.group(1)
    for match in re.finditer(r"```python\n(.*?)```", README.read_text(), re.S)
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def _write(tmp_path: Path, name: str, port: int | None = None, replace: tuple[str, str] | None = None) -> Path:
    source = BLOCKS[name] if port is None else BLOCKS[name].replace("8080", str(port))
    if replace is not None:
        assert replace[0] in source, (name, replace[0])
        source = source.replace(*replace)
    path = tmp_path / name
    path.write_text(source)
    return path


def test_every_python_block_is_a_named_complete_program():
    assert set(BLOCKS) == {"client.py", "server.py", "http_client.py", "fastmcp_client.py", "http_server.py", "http_server_v1.py", "http_server_deadlines.py", "http_server_compression.py", "fastmcp_server.py"}
    for name, source in BLOCKS.items():
        compile(source, name, "exec")  # a top-level `async with` or `await` is a SyntaxError here
        assert "npx" not in source and "mcp-filesystem-media-server" not in source, name  # nothing unpublished


def test_the_compression_block_builds_its_apps():
    scope: dict = {}
    exec(compile(BLOCKS["http_server_compression.py"], "http_server_compression.py", "exec"), scope)
    policies = [scope[name].state.session_manager.compression for name in ("auto", "always", "never", "chosen")]
    assert [p.replies for p in policies] == ["auto", True, False, "auto"]
    assert policies[2].request_codings == () and policies[3].min_bytes == 4096


@pytest.mark.skipif("mcp.server.mcpserver" not in sys.modules and not __import__("importlib").util.find_spec("mcp.server.mcpserver"), reason="the README's server is an MCPServer (SDK 2.x)")
def test_the_stdio_client_block_reads_the_server_blocks_image_as_bytes(tmp_path):
    _write(tmp_path, "server.py")
    client = _write(tmp_path, "client.py")
    done = subprocess.run([sys.executable, str(client)], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "['screenshot']"
    size, base64_head = lines[1].split(" ", 1)
    assert int(size) == 8 + 256 * 64 and base64_head == "iVBORw0KGgoAAQID"  # the PNG signature's base64


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_listening(server: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "the HTTP server block did not start"
            time.sleep(0.2)


@contextlib.contextmanager
def _serving(tmp_path: Path, name: str, port: int, replace: tuple[str, str] | None = None) -> Iterator[None]:
    """The server block `name` running on `port` (its 8080 replaced), until the block of the `with` ends."""
    source = _write(tmp_path, name, port, replace)
    server = subprocess.Popen([sys.executable, str(source)], cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_until_listening(server, port)
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)


def _run_block(tmp_path: Path, name: str, port: int) -> str:
    done = subprocess.run([sys.executable, str(_write(tmp_path, name, port))], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.skipif(HTTP_UNAVAILABLE is not None, reason=f"Streamable HTTP needs mcp 2.3+ internals: {HTTP_UNAVAILABLE}")
def test_the_http_client_blocks_call_the_http_server_block(tmp_path):
    port = _free_port()
    with _serving(tmp_path, "http_server.py", port):
        assert "over MessagePack" in _run_block(tmp_path, "http_client.py", port)
        pytest.importorskip("fastmcp")
        pytest.importorskip("pydantic_ai")
        assert _run_block(tmp_path, "fastmcp_client.py", port).splitlines()[0] == "['echo']"


@pytest.mark.skipif(HTTP_UNAVAILABLE is not None, reason=f"Streamable HTTP needs mcp 2.3+ internals: {HTTP_UNAVAILABLE}")
def test_the_deadline_server_block_closes_an_idle_connection_and_serves_the_client_block(tmp_path):
    """The Floods block as pasted, its 10 s deadline made 1 s: a connection that sends nothing is closed
    unanswered, and the HTTP client block still gets its answer."""
    port = _free_port()
    with _serving(tmp_path, "http_server_deadlines.py", port, ("head_deadline_protocol(10)", "head_deadline_protocol(1)")):
        with socket.create_connection(("127.0.0.1", port), timeout=60) as idle:
            assert idle.recv(1) == b""  # closed by the server, nothing answered (the timeout only bounds a hang)
        assert "over MessagePack" in _run_block(tmp_path, "http_client.py", port)


@pytest.mark.skipif(HTTP_UNAVAILABLE is not None, reason=f"Streamable HTTP needs mcp 2.3+ internals: {HTTP_UNAVAILABLE}")
def test_the_http_client_block_calls_the_fastmcp_server_block(tmp_path):
    pytest.importorskip("fastmcp")
    port = _free_port()
    with _serving(tmp_path, "fastmcp_server.py", port):
        assert "over MessagePack" in _run_block(tmp_path, "http_client.py", port)


@pytest.mark.skipif(not SESSION_LOOP_SERVER, reason="the block is an mcp 1.x server (mcp.server.fastmcp)")
def test_the_mcp_1x_server_block_serves_its_image_as_native_bytes(tmp_path):
    import anyio
    from mcp.client.session import ClientSession

    from mcp_msgpack import call_tool_native, streamable_http_client

    async def read(url: str) -> object:
        async with streamable_http_client(url, native_bytes=True) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return (await call_tool_native(session, "screenshot", {})).content[0].data  # type: ignore[union-attr]

    port = _free_port()
    with _serving(tmp_path, "http_server_v1.py", port):
        data = anyio.run(read, f"http://127.0.0.1:{port}/mcp")
    assert data == b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64
