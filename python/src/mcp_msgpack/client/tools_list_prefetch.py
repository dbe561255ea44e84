"""The client's one-round-trip opening on 2026-07-28 (python/README.md, "Tools list prefetch"), as the TypeScript
client transport has it (its `tools-list-prefetch.ts`).

The SDK's `Client` (mcp 2.x, `mode='auto'`) connects with one `server/discover`, and the host's first call is
nearly always `list_tools()`: two round trips. On the stateless revision `tools/list` needs nothing from the
discover (no session; the `_meta` envelope rides on the request), so the transport posts a `tools/list` of its
own, with the discover's envelope, beside it. Its result is kept for the SDK's first `tools/list` without a
cursor whose envelope is the same, which is answered from it under the SDK's id (or waits for it while it is
still on the way) without going to the network. Used once, and only while fresh.

A speculation: any failure (an error reply, a status other than 200, a 2025-era or JSON-only server, a network
error, an answer that is anything but one result) drops it silently, and the SDK's `tools/list` goes out as it
would have. The server sees an ordinary request; the SDK sees the result the server gave for it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from anyio.abc import TaskGroup

from ..shared.http_negotiation import is_modern_request

logger = logging.getLogger(__name__)

PREFETCH_ID = "mcp-msgpack/tools-list"
"""The id of the transport's own `tools/list`: a string, where the SDK numbers its requests."""

PREFETCH_FRESH_SECONDS = 10.0
"""How long after it was sent the kept result may answer the SDK's `tools/list`. A host lists tools right after
the connect returns, one round trip (the discover's) after the prefetch left; past this the list may have
changed on the server since, and the SDK asks itself."""

PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"

PrefetchPost = Callable[[dict[str, Any], dict[str, str]], Awaitable[list[Any] | None]]
"""Posts the prefetch (a JSON-RPC request as a dict) with these per-message headers and gives back every message
of its answer as dicts, in order (anything else in the list, an exception a reader passed on, fails it), or None
on any failure."""


class ToolsListPrefetch:
    """The prefetch's state for one transport: whether the first request was a 2026-07-28 `server/discover`,
    the envelope it carried, and the kept result (or the wait for it). Messages are seen as dicts (with the
    headers the SDK's session stamped on them), as every SDK line's client has them."""

    def __init__(self, enabled: bool, fresh_seconds: float = PREFETCH_FRESH_SECONDS) -> None:
        self.enabled = enabled
        self.fresh_seconds = fresh_seconds
        self._saw_request = False
        self._envelope: Any = None
        self._headers: dict[str, str] = {}
        self._result: dict[str, Any] | None = None
        self._kept = False
        self._sent_at = 0.0
        # Made by start(), inside the event loop (anyio makes both for the running backend).
        self._done: anyio.Event | None = None
        self._scope: anyio.CancelScope | None = None

    def prefetch_for(self, request: dict[str, Any], headers: Mapping[str, str] | None) -> dict[str, Any] | None:
        """Sees each request the SDK sends, before it goes: after a 2026-07-28 discover as the first request,
        the prefetch to post beside it (through `start()`); an `initialize` (a 2025-era connection) drops it."""
        if request.get("method") == "initialize":
            self.drop()
        if self._saw_request:
            return None
        self._saw_request = True
        params = request.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if not self.enabled or request.get("method") != "server/discover" or not is_modern_request(meta):
            return None
        # A copy: the transports add their native-bytes offer to the discover's own envelope as it goes.
        self._envelope = meta = copy.deepcopy(meta)
        self._headers = {**(headers or {}), METHOD_HEADER: "tools/list"}
        return {"jsonrpc": "2.0", "id": PREFETCH_ID, "method": "tools/list", "params": {"_meta": meta}}

    def start(self, request: dict[str, Any], post: PrefetchPost, tasks: TaskGroup) -> None:
        """Posts the request `prefetch_for()` gave in `tasks`, and keeps its result until it is used, stale or
        dropped."""
        self._kept = True
        self._sent_at = anyio.current_time()
        self._done, self._scope = anyio.Event(), anyio.CancelScope()
        tasks.start_soon(self._run, request, post, self._done, self._scope)

    async def _run(self, request: dict[str, Any], post: PrefetchPost, done: anyio.Event, scope: anyio.CancelScope) -> None:
        try:
            with scope:
                self._result = _result_of(await post(request, self._headers))
        except Exception:  # any failure is the SDK's own tools/list going out instead
            logger.debug("tools/list prefetch failed", exc_info=True)
        finally:
            done.set()

    async def answer(
        self, request: dict[str, Any], headers: Mapping[str, str] | None, resumption_token: str | None = None
    ) -> dict[str, Any] | None:
        """The response to the SDK's request from the kept result, when it is the first `tools/list` without a
        cursor with the prefetch's envelope, under the SDK's id; None when it is not, or when the prefetch
        failed or went stale (the SDK's request then goes out)."""
        if not self._kept or request.get("method") != "tools/list":
            return None
        if resumption_token is not None or not _plain(request, headers, self._envelope):
            return None
        self._kept = False
        if self._done is None or anyio.current_time() - self._sent_at > self.fresh_seconds:
            self.drop()
            return None
        await self._done.wait()
        result = self._result
        self._result = None
        return None if result is None else {"jsonrpc": "2.0", "id": request.get("id"), "result": result}

    def saw(self, message: Mapping[str, Any]) -> None:
        """Sees each message the transport delivers to the SDK: the tool list changed drops the kept one."""
        if message.get("method") == "notifications/tools/list_changed":
            self.drop()

    def drop(self) -> None:
        """Stale, a 2025-era connection, the tool list changed, or the transport closing: the kept result goes,
        a prefetch in flight is cancelled."""
        self._kept = False
        self._result = None
        if self._scope is not None:
            self._scope.cancel()


def _plain(request: dict[str, Any], headers: Mapping[str, str] | None, envelope: Any) -> bool:
    """A `tools/list` with nothing but the envelope in its params and nothing but the SDK's stamped headers:
    one the prefetch's result answers as the server would."""
    params = request.get("params")
    if not isinstance(params, dict) or set(params) != {"_meta"} or params["_meta"] != envelope:
        return False
    return {name.lower() for name in headers or {}} <= {PROTOCOL_VERSION_HEADER, METHOD_HEADER}


def _result_of(messages: list[Any] | None) -> dict[str, Any] | None:
    """The result of the prefetch's answer: exactly one message, a result for its id."""
    if messages is None or len(messages) != 1 or not isinstance(messages[0], dict):
        return None
    message = messages[0]
    result = message.get("result")
    if message.get("id") == PREFETCH_ID and "error" not in message and isinstance(result, dict):
        return result
    return None


__all__ = ["PREFETCH_FRESH_SECONDS", "PREFETCH_ID", "PrefetchPost", "ToolsListPrefetch"]
