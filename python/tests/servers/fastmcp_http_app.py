"""A FastMCP (the `fastmcp` package, 4.x) server with an image tool returning FastMCP's `Image`, served over
Streamable HTTP by uvicorn on `mcp_msgpack.fastmcp.http_app(mcp)` (tests/test_fastmcp_http.py).

argv: PORT IMAGE_PATH BYTES_LOG [--fastmcp-own]: FastMCP's own `mcp.http_app()` instead of ours (for
comparison). Each response's body size is appended to BYTES_LOG as `content-type size` lines (an ASGI wrapper
around the whole app), so the test can see what crossed the wire."""

from __future__ import annotations

import sys
from typing import Any

import uvicorn
from fastmcp import FastMCP
from fastmcp.utilities.types import Image
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from mcp_msgpack.fastmcp import http_app

mcp = FastMCP("fastmcp-http-media")
image_path = ""


@mcp.tool
def echo(text: str) -> str:
    """Returns its text."""
    return text


@mcp.tool
def read_image() -> Image:
    """The image file, as FastMCP's Image (FastMCP makes the ImageContent and its base64)."""
    with open(image_path, "rb") as f:
        return Image(data=f.read(), format="png")


@mcp.custom_route("/health", methods=["GET"])
async def health(request: Request) -> PlainTextResponse:
    """A FastMCP custom route: still served by the app of ours."""
    return PlainTextResponse("ok")


def counting(app: Any, log_path: str) -> Any:
    """The app, with each response's content type and body size appended to `log_path`."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        seen = {"type": "", "size": 0}

        async def counted(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                seen["type"] = headers.get(b"content-type", b"").decode()
            elif message["type"] == "http.response.body":
                seen["size"] += len(message.get("body", b""))
                if not message.get("more_body", False):
                    with open(log_path, "a") as log:
                        log.write(f"{seen['type'] or '-'} {seen['size']}\n")
            await send(message)

        await app(scope, receive, counted)

    return wrapped


if __name__ == "__main__":
    port, image_path, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    app = mcp.http_app() if "--fastmcp-own" in sys.argv else http_app(mcp)
    uvicorn.run(counting(app, log_path), host="127.0.0.1", port=port, log_level="warning")
