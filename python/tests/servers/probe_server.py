"""The Python server the shared probe set (fixtures/probes/, scripts/probes.mjs) is pointed at: an MCPServer with the
TypeScript media server's two media tools and `echo`, on this package's stdio_server or streamable_http_app.

    python probe_server.py stdio DIR    msgpack-v1 or JSON on stdin/stdout, as the client's first byte says
    python probe_server.py http DIR     Streamable HTTP under uvicorn on 127.0.0.1, a free port; prints its URL
                                        (one line on stdout) once it listens, as the TS media server does
        [--bind HOST]                   listen on HOST instead (0.0.0.0: the loopback checks still hold)
        [--initialization-deadline S]   streamable_http_app's initialization_deadline (default 10 s)
        [--no-host-check]               DNS-rebinding protection off for every request (transport_security)

Both run with the package's defaults but for those options, so the probes see what a user gets out of the box."""

from __future__ import annotations

import mimetypes
import os
import socket
import sys

import anyio
from mcp.server.mcpserver import MCPServer

from mcp_msgpack import native_image

server = MCPServer("python-probes")
root = ""  # the one directory the tools read, from argv


def _inside(path: str) -> str:
    """The real path of `path` if it lies in the served directory; anything else is refused."""
    full = os.path.realpath(os.path.join(root, path))
    if os.path.commonpath([full, root]) != root:
        raise ValueError(f"{path} is outside the served directory")
    return full


@server.tool()
def read_media_file(path: str):
    """The file's bytes as an image block (native bytes for a client that negotiated them, base64 for the rest)."""
    full = _inside(path)
    with open(full, "rb") as file:
        data = file.read()
    return native_image(data, mimetypes.guess_type(full)[0] or "application/octet-stream")


@server.tool()
def get_file_info(path: str) -> str:
    """Size and kind of a file, as text."""
    info = os.stat(_inside(path))
    return f"size: {info.st_size}\nisFile: {os.path.isfile(_inside(path))}"


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


async def serve_stdio() -> None:
    from mcp_msgpack import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def _raise_open_file_limit() -> None:
    """The soft open-file limit up to the hard one: the probes' flood holds 4,000 connections (the TS server
    on Node cannot raise its own; the runner scales the flood to the limit it inherited)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else max(soft, 65_536), hard))


def serve_http(options: list[str]) -> None:
    import uvicorn

    from mcp_msgpack import streamable_http_app

    def option(name: str) -> str | None:
        return options[options.index(name) + 1] if name in options else None

    bind = option("--bind") or "127.0.0.1"
    _raise_open_file_limit()
    deadline = option("--initialization-deadline")
    app_options: dict[str, object] = {} if deadline is None else {"initialization_deadline": float(deadline)}
    if "--no-host-check" in options:  # DNS-rebinding protection off for every request (host_check.py)
        from mcp.server.transport_security import TransportSecuritySettings

        app_options["transport_security"] = TransportSecuritySettings(enable_dns_rebinding_protection=False)

    # Bound here, before uvicorn starts, so the port is known and printed while the socket already queues connections.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((bind, 0))
    sock.listen(2048)
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(streamable_http_app(server, **app_options), log_level="warning", lifespan="on"))
    print(f"http://{bind}:{port}/mcp", flush=True)
    anyio.run(lambda: uv.serve(sockets=[sock]))


if __name__ == "__main__":
    mode, root = sys.argv[1], os.path.realpath(sys.argv[2])
    if mode == "stdio":
        anyio.run(serve_stdio)
    elif mode == "http":
        serve_http(sys.argv[3:])
    else:
        sys.exit(f"usage: {sys.argv[0]} stdio|http DIR [--bind HOST] [--initialization-deadline S] [--no-host-check]")
