"""The test app of http_media_app.py behind an ASGI layer that keeps what reached the server: each POSTed
request's method and id, in order, read from its body (MessagePack or JSON). `GET /requests` answers them as a
JSON list of [method, id]; `DELETE /requests` forgets them. argv: PORT IMAGE_PATH [http_media_app's flags]."""

import json
import sys
from pathlib import Path
from typing import Any

import msgpack
import uvicorn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import http_media_app  # noqa: E402

from mcp_msgpack import streamable_http_app  # noqa: E402

seen: list[list[Any]] = []


def _record(body: bytes, content_type: str) -> None:
    try:
        value = msgpack.unpackb(body) if "msgpack" in content_type else json.loads(body)
    except Exception:  # a body the server refuses: nothing to count
        return
    for message in value if isinstance(value, list) else [value]:
        if isinstance(message, dict) and "method" in message and "id" in message:
            seen.append([message["method"], message["id"]])


def counting(app: Any) -> Any:
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/requests":
            if scope["type"] == "http" and scope["method"] == "POST":
                chunks, more = [], True
                while more:
                    event = await receive()
                    chunks.append(event.get("body", b""))
                    more = event.get("more_body", False)
                body = b"".join(chunks)
                headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
                _record(body, headers.get("content-type", ""))
                replayed = False

                async def replay() -> Any:
                    nonlocal replayed
                    if not replayed:
                        replayed = True
                        return {"type": "http.request", "body": body, "more_body": False}
                    return await receive()

                await app(scope, replay, send)
                return
            await app(scope, receive, send)
            return
        if scope["method"] == "DELETE":
            seen.clear()
        payload = json.dumps(seen).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": payload})

    return wrapped


if __name__ == "__main__":
    port, http_media_app.image_path = int(sys.argv[1]), sys.argv[2]
    app = streamable_http_app(http_media_app.server, stateless_http="--stateless" in sys.argv)
    uvicorn.run(counting(app), host="127.0.0.1", port=port, log_level="warning")
