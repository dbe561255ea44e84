"""What the SDK's Streamable HTTP server of the early 1.x releases (1.24) lacks and this package's server needs,
written here on public anyio/Starlette calls (shared/sdk_compat.py's header lists each difference):

- `PrimingAndSseWriter`: a mixin placed after the SDK's transport in the MRO, so the SDK's own
  `_mint_priming_event` and `_run_sse_writer` (1.30, 2.3) win wherever they exist; 1.24 has neither (its SSE
  writer is a closure inside `_handle_post_request`).
- `serve_stateful_request`: the stateful path of a session manager whose SDK opens sessions without the
  `_admit_session` hook (1.24 builds the SDK's own transport inline): the session is admitted by ours and run
  by `Server.run`, as 1.24's manager runs it; it is forgotten when it ends or is refused at its opening.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, EventMessage
from mcp.types import RequestId
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from ..shared.sdk_compat import message_model, types
from .streamable_http_lines import SSEEvent, is_version_at_least

logger = logging.getLogger(__name__)

PRIMING_REVISION = "2025-11-25"
"""The first revision whose clients read a priming event (an SSE event with empty data), as the SDK's."""


class PrimingAndSseWriter:
    """The SDK's `_mint_priming_event` and `_run_sse_writer` of 1.30, for a transport whose SDK lacks them."""

    _event_store: Any
    _retry_interval: int | None
    _sse_stream_writers: dict[RequestId, Any]

    async def _mint_priming_event(self, stream_id: str, protocol_version: str) -> SSEEvent | None:
        """The priming cursor for `stream_id`, stored before the request is dispatched (None without an event
        store, or for a client before 2025-11-25, which cannot read an empty event)."""
        if not self._event_store or not is_version_at_least(protocol_version, PRIMING_REVISION):
            return None
        event: SSEEvent = {"id": await self._event_store.store_event(stream_id, None), "data": ""}
        if self._retry_interval is not None:
            event["retry"] = self._retry_interval
        return event

    async def _run_sse_writer(
        self,
        request_id: RequestId,
        sse_stream_writer: MemoryObjectSendStream[SSEEvent],
        request_stream_reader: MemoryObjectReceiveStream[EventMessage],
        priming_event: SSEEvent | None,
    ) -> None:
        """One POST's messages onto its SSE stream until its response (the SDK's event form, `_create_event_data`)."""
        sdk: Any = self
        try:
            async with sse_stream_writer, request_stream_reader:
                if priming_event is not None:
                    await sse_stream_writer.send(priming_event)
                async for event in request_stream_reader:
                    await sse_stream_writer.send(sdk._create_event_data(event))
                    if isinstance(message_model(event.message), types.JSONRPCResponse | types.JSONRPCError):
                        break
        except anyio.ClosedResourceError:
            logger.debug("SSE stream closed")
        finally:
            self._sse_stream_writers.pop(request_id, None)
            await sdk._clean_up_memory_streams(request_id)


async def serve_stateful_request(manager: Any, scope: Scope, receive: Receive, send: Send) -> None:
    """A request of a session (its id known: `_session_refusal` has refused any other) or one opening a session,
    on a manager whose SDK lacks `_admit_session` (1.24). `manager` is ours (`MsgpackStreamableHTTPSessionManager`)."""
    session_id = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
    if session_id is not None:
        transport = manager._server_instances[session_id]
        await transport.handle_request(scope, receive, send)
        if transport.is_terminated:  # the client ended the session (DELETE): forget it now
            _forget(manager, session_id)
        return
    async with manager._session_creation_lock:
        transport = manager._admit_session(None)
    if transport is None:  # the cap was reached between the refusal check and here
        refusal = manager._session_refusal(scope)
        await refusal(scope, receive, send)
        return
    new_id = transport.mcp_session_id
    app: Any = manager.app

    async def run_server(*, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with transport.connect() as (read_stream, write_stream):
            task_status.started()
            try:
                await app.run(read_stream, write_stream, app.create_initialization_options(), stateless=False)
            except Exception:
                logger.exception("Session %s crashed", new_id)
            finally:
                _forget(manager, new_id)

    status: int | None = None

    async def watch_status(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    try:
        await manager._task_group.start(run_server)
        await transport.handle_request(scope, receive, watch_status)
    finally:
        if status is None or status >= 400:  # nothing was established: no session left behind
            _forget(manager, new_id)
            with anyio.CancelScope(shield=True):
                await transport.terminate()


def _forget(manager: Any, session_id: str) -> None:
    manager._server_instances.pop(session_id, None)
    manager._session_owners.pop(session_id, None)
