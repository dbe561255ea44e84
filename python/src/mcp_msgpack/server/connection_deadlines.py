"""A request-head deadline for uvicorn connections, so that floods of idle and half-sent connections lock
nobody out (issue 39 item 6).

uvicorn closes a kept-alive connection `timeout_keep_alive` seconds after a response, but a connection that
never sends a request, or sends its head a byte at a time (any byte cancels that timer), is kept until the
peer goes: each holds a file descriptor and a few KiB, and the descriptors run out first. This protocol is
uvicorn's own h11 one with one more timer: from the moment a connection opens, and again after each
response, the request head (request line and every header) must be complete within `head_timeout` seconds,
or the connection is closed without an answer. A request whose head came in time is not timed here (its
body and reply are the application's: a 413 bounds the body, SPEC 9.4).

    import uvicorn
    from mcp_msgpack.server.connection_deadlines import head_deadline_protocol
    uvicorn.run(app, host="127.0.0.1", port=8080, http=head_deadline_protocol(10), timeout_keep_alive=5)

Other ASGI servers have the same knobs under other names: Hypercorn's `read_timeout` (and `keep_alive_timeout`),
Granian's `--http1-header-read-timeout`, a reverse proxy's (nginx `client_header_timeout`) in front of any.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT = 10.0
"""Seconds a connection has to send a complete request head (the TS server's header timeout is of this order)."""


class HeadDeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is not complete within `head_timeout`."""

    head_timeout: float = HEAD_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._arm_head_deadline()

    def _arm_head_deadline(self) -> None:
        self._cancel_head_deadline()
        self._head_deadline = self.loop.call_later(self.head_timeout, self._head_overdue)

    def _cancel_head_deadline(self) -> None:
        deadline = getattr(self, "_head_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._head_deadline = None

    def _head_overdue(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()  # nothing to answer: the head never came

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # the head is in: the request is the application's now
            self._cancel_head_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)


def head_deadline_protocol(head_timeout: float = HEAD_TIMEOUT) -> type[HeadDeadlineH11Protocol]:
    """The protocol class to pass as uvicorn's `http=`, with its request-head deadline in seconds."""
    if head_timeout <= 0:
        raise ValueError("head_timeout must be more than 0 seconds")
    return type("HeadDeadlineH11Protocol", (HeadDeadlineH11Protocol,), {"head_timeout": head_timeout})
