"""Servers and wire recorders for the HTTP tests: a Python MCPServer on our ASGI app (uvicorn, its own process),
the TS media server with --http, both on a loopback port chosen here, and an HTTP transport that keeps what
crossed the wire (on the installed SDK's own HTTP library: httpx2 on mcp 2.x, httpx on 1.x)."""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.client.streamable_http as sdk_streamable_http

httpx2: Any = getattr(sdk_streamable_http, "httpx2", None) or sdk_streamable_http.httpx

ROOT = Path(__file__).resolve().parents[2]
MEDIA_SERVER = ROOT / "packages" / "filesystem-media-server" / "bin" / "mcp-filesystem-media-server.js"
IMAGE_BYTES = 5 * 1024 * 1024


def sdk_json_client(url: str, http_client: Any) -> Any:
    """The SDK's own Streamable HTTP client (JSON) with no SSE event size cap: 2.3's caps an event at 1 MiB by
    default (the 5 MiB image needs more); 2.0-2.2's has no cap and no such argument."""
    import inspect

    unlimited = {"max_sse_event_size": None} if "max_sse_event_size" in inspect.signature(
        sdk_streamable_http.streamable_http_client
    ).parameters else {}
    return sdk_streamable_http.streamable_http_client(url, http_client=http_client, **unlimited)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_image(folder: Path) -> tuple[Path, bytes]:
    """A 5 MiB PNG-headed file of random bytes (so nothing compresses or repeats)."""
    data = b"\x89PNG\r\n\x1a\n" + os.urandom(IMAGE_BYTES - 8)
    path = folder / "image.png"
    path.write_bytes(data)
    return path, data


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"no server on port {port}")


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    try:
        _wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def media_server(folder: Path) -> contextlib.AbstractContextManager[str]:
    port = free_port()
    return running(["node", str(MEDIA_SERVER), "--http", f"127.0.0.1:{port}", str(folder)], port)


def ts_sdk_server() -> contextlib.AbstractContextManager[str]:
    """The TS SDK's own Streamable HTTP server, JSON only, serving `echo` (tests/ts/sdk_server.mjs)."""
    port = free_port()
    return running(["node", str(Path(__file__).parent / "ts" / "sdk_server.mjs"), str(port)], port)


def python_server(image: Path, *extra: str, src_dir: Path | None = None) -> contextlib.AbstractContextManager[str]:
    """The test app on a loopback port; `src_dir`: another copy of this package's sources (A/B measures)."""
    port = free_port()
    script = Path(__file__).parent / "servers" / "http_media_app.py"
    src = str(src_dir or ROOT / "python" / "src")
    env = {"PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return running([sys.executable, str(script), str(port), str(image), *extra], port, env)


class RecordingTransport(httpx2.AsyncBaseTransport):
    """Forwards to httpx2's transport and keeps each exchange: request type and body, response type and body."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.exchanges: list[dict] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        response = await self.inner.handle_async_request(request)
        record = {
            "method": request.method,
            "request_type": request.headers.get("content-type"),
            "accept": request.headers.get("accept"),
            "request_body": body,
            "status": response.status_code,
            "type": response.headers.get("content-type"),
            "wire": response.headers.get("mcp-msgpack-wire"),
            "coding": response.headers.get("content-encoding"),
            "request_coding": request.headers.get("content-encoding"),
            "request_accept_encoding": request.headers.get("accept-encoding"),
            "request_session": request.headers.get("mcp-session-id"),
            "accept_encoding": response.headers.get("accept-encoding"),
            "vary": response.headers.get("vary"),
            "body": bytearray(),
        }
        self.exchanges.append(record)
        inner = response.stream

        class Kept(httpx2.AsyncByteStream):
            async def __aiter__(self):
                async for chunk in inner:
                    record["body"] += chunk
                    yield chunk

            async def aclose(self) -> None:
                await inner.aclose()

        return httpx2.Response(
            response.status_code, headers=response.headers, stream=Kept(), extensions=response.extensions
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def recording_client() -> tuple[httpx2.AsyncClient, RecordingTransport]:
    transport = RecordingTransport()
    return httpx2.AsyncClient(transport=transport, timeout=httpx2.Timeout(30, read=120)), transport


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
