"""`stdio_server`: the drop-in for `mcp.server.stdio.stdio_server` that also speaks msgpack-v1 (SPEC 7).

It tells the wires apart by the client's first byte (7.2), accepts the JSON-first upgrade (7.1) and the mixed
stream (7.4), and negotiates native bytes (8.1) in either case.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.lowlevel
import anyio.to_thread
from mcp.shared.message import SessionMessage

from ..shared.sdk_compat import claim_stdio, create_message_streams, message_model, types
from ..shared.extension import announce, announced_version
from ..shared.http_negotiation import request_offers
from .reply_encoding import carries_media
from ..shared.held_media import HeldMediaGone, RequestHold, serving
from ..shared.stdio_connection import (
    MSGPACK_V1,
    Outcome,
    READ_SIZE,
    SEND_FRAMES,
    SEND_JSON,
    SEND_MIXED,
    WIRE_META,
    WireState,
    json_line,
    strip_wire_member,
    wire_member,
)
from ..wire import FRAME, ReceiveLimits, StreamReader, WireError
from ..wire.reader import DETECT, FRAMES, JSON, JSON_UNTIL_FRAME, MIXED


class _ServerWire(WireState):
    """The server's side of the upgrade and of the native-bytes negotiation."""

    def __init__(self, wire: str, native_bytes: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.wire = wire
        self.native_bytes = native_bytes
        self.reader = StreamReader({"auto": DETECT, "json": JSON, "msgpack": FRAMES}[wire], self.max_bytes)
        self.accepted = False
        self.offers: dict[object, bool] = {}  # offering request id -> offered "mixed"
        self.native_offer_id: object = None  # an initialize that offered native bytes where it counts
        self._has_native_offer = False
        # 2026-07-28 requests that offered the extension on their own, on msgpack-v1 (SPEC 8.1 rule 5): each
        # one's answer goes as a frame with bin media; `server/discover` ones also advertise it (rule 6).
        self.offered_ids: dict[object, str] = {}

        self._reading_offer = False

    def may_receive_bin(self) -> bool:
        return self.native_receive or self._reading_offer

    def bin_allowed_in(self, value: dict[str, Any]) -> bool:
        return self.native_receive or ("method" in value and "id" in value and request_offers(value))

    def _read_frame(self, payload: bytes) -> Outcome:
        """Rule 7: a request that offers the extension on its own may carry bin at its media fields. A frame is
        read without bin first (a bin is refused at its header, 4.1 rule 3); only a frame refused for a bin is
        read again with bin, and kept if it is a request that offers the extension (8.3 otherwise); reading a
        refused frame twice at most doubles its cost."""
        outcome = super()._read_frame(payload)
        refused = outcome.deliver
        if self.native_receive or not self.native_bytes or not (isinstance(refused, WireError) and refused.code == "forbidden-type"):
            return outcome
        self._reading_offer = True
        try:
            again = super()._read_frame(payload)
        finally:
            self._reading_offer = False
        # Kept only when read whole: a frame refused again (the request does not offer, or is bad in another way)
        # gets the first refusal, the bin at its header, as a server without the extension answers it.
        return again if isinstance(again.deliver, SessionMessage) and again.reply is None else outcome

    def on_frames(self) -> None:
        self.send = SEND_FRAMES

    def incoming(self, message: SessionMessage, kind: str = FRAME) -> None:
        """Notes the upgrade and native-bytes offers of a message the client sent (`kind`: read as a line or a
        frame), removing the wire member."""
        model = message_model(message.message)
        if not isinstance(model, types.JSONRPCRequest):
            return
        params = model.params
        on_msgpack = self.reader.mode in (FRAMES, MIXED) or self.send != SEND_JSON
        if (
            kind == FRAME and self.native_bytes and model.method != "initialize"
            and request_offers({"method": model.method, "params": params})
        ):
            self.offered_ids[model.id] = model.method
        member = wire_member(params)
        if member is not None:
            strip_wire_member(params)  # type: ignore[arg-type]  # a member was found, so params is a dict
            if not params:
                model.params = None
            offer = member.get("offer") if isinstance(member, dict) else None
            if self.wire == "auto" and not self.accepted and self.send == SEND_JSON and isinstance(offer, list) and MSGPACK_V1 in offer:
                self.offers[model.id] = isinstance(member, dict) and member.get("mixed") is True
        if model.method == "initialize" and self.native_bytes and isinstance(params, dict):
            version = announced_version(params.get("capabilities"))
            if version is not None and version >= 1 and (on_msgpack or model.id in self.offers):
                self.native_offer_id = model.id
                self._has_native_offer = True

    def request_hold(self, message: SessionMessage) -> RequestHold | None:
        """A hold for `native_image` while a request is handled, when its reply will carry bin; a cancelled
        request's hold is released (its reply is never sent)."""
        model = message_model(message.message)
        if isinstance(model, types.JSONRPCNotification) and model.method == "notifications/cancelled":
            params = model.params if isinstance(model.params, dict) else {}
            self.held.release(params.get("requestId"))
            self.offered_ids.pop(params.get("requestId"), None)
            return None
        if isinstance(model, types.JSONRPCRequest) and (self.replies_carry_bin() or model.id in self.offered_ids):
            return self.held.open(model.id)
        return None

    def outgoing(self, message: types.JSONRPCMessage) -> bytes:
        """Encodes what the SDK's server sends; a reply's held media are released once it is encoded (or fails)."""
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return self._outgoing(message)
        try:
            method = self.offered_ids.pop(message.id, None)
            if method is not None and self.send != SEND_JSON:
                return self._answer_offer(message, method)
            return self._outgoing(message)
        except HeldMediaGone as exc:
            # Loudly, as an error for the request: never a success without its media.
            failure = types.JSONRPCError(
                jsonrpc="2.0", id=message.id, error=types.ErrorData(code=-32603, message=f"Internal error: {exc}")
            )
            return self.encode(failure)
        finally:
            self.held.release(message.id)

    def _answer_offer(self, message: types.JSONRPCResponse | types.JSONRPCError, method: str) -> bytes:
        """The answer to a request that offered native bytes on its own (SPEC 8.1 rules 5-6): a frame, even on
        a mixed stream, its media as bin; a `server/discover` result advertises the extension."""
        if method == "server/discover" and isinstance(message, types.JSONRPCResponse):
            result = dict(message.result)
            result["capabilities"] = announce(result.get("capabilities") or {})
            message = message.model_copy(update={"result": result})
        elif self.send == SEND_MIXED and self.encoding != "smallest" and not carries_media(getattr(message, "result", None)):
            return self.encode(message)  # no media: the mixed stream's own choice (a JSON line costs CPython less)
        return self.encode(message, as_frame=True, native=True)

    def _outgoing(self, message: types.JSONRPCMessage) -> bytes:
        """Encodes what the SDK's server sends, accepting a pending upgrade on the first result to an offer."""
        if isinstance(message, types.JSONRPCError) and message.id in self.offers:
            del self.offers[message.id]  # an error settles nothing (7.1 rule 1)
        if not isinstance(message, types.JSONRPCResponse):
            return self.encode(message)
        confirm = self._has_native_offer and message.id == self.native_offer_id
        if message.id in self.offers and not self.accepted:
            mixed = self.offers[message.id]
            result = dict(message.result)
            meta = dict(result.get("_meta") or {})
            meta[WIRE_META] = {"accept": MSGPACK_V1, "mixed": True} if mixed else {"accept": MSGPACK_V1}
            result["_meta"] = meta
            if confirm:
                result["capabilities"] = announce(result.get("capabilities") or {})
            line = json_line(message.model_copy(update={"result": result}))
            # The switch point: every byte after this line is msgpack-v1 (a mixed stream if both said so).
            self.accepted = True
            self.offers.clear()
            self.send = SEND_MIXED if mixed else SEND_FRAMES
            self.reader.mode = MIXED if mixed else JSON_UNTIL_FRAME
            if confirm:
                self.native_send = self.native_receive = True
                self._has_native_offer = False
            return line
        if confirm and self.send != SEND_JSON:
            result = dict(message.result)
            result["capabilities"] = announce(result.get("capabilities") or {})
            message = message.model_copy(update={"result": result})
            self._has_native_offer = False
            data = self.encode(message) if self.send == SEND_FRAMES else self._encode_frame(message)
            self.native_send = self.native_receive = True
            return data
        return self.encode(message)

    def _encode_frame(self, message: types.JSONRPCMessage) -> bytes:
        """A message that confirms native bytes goes as a frame even on a mixed stream (7.4 rule 5)."""
        send, self.send = self.send, SEND_FRAMES
        try:
            return self.encode(message)
        finally:
            self.send = send


def _binary_stdio(fd: int) -> tuple[BinaryIO, Any]:
    """fd 0 or 1 as a binary stream, claimed the way the SDK's stdio_server claims it (its handlers and children
    then read EOF and their stray output misses the wire)."""
    return claim_stdio(fd)


@asynccontextmanager
async def stdio_server(
    stdin: anyio.AsyncFile[bytes] | None = None,
    stdout: anyio.AsyncFile[bytes] | None = None,
    *,
    wire: str = "auto",
    native_bytes: bool = True,
    encoding: str = "cheapest-cpu",
    limits: ReceiveLimits | None = None,
) -> AsyncGenerator[tuple[Any, Any], None]:
    """Serve MCP over the process's stdin and stdout, in JSON lines or msgpack-v1, as the client speaks.

    `wire`: 'auto' (default) detects by the first byte and accepts upgrade offers; 'json' serves JSON lines
    only and declines offers; 'msgpack' reads frames only. `native_bytes` lets a msgpack-v1 client negotiate
    the extension (SPEC 8). `encoding` is what is sent on a mixed stream (7.4): 'cheapest-cpu', 'smallest'
    (frames only), 'json'. Explicit `stdin`/`stdout` are binary async files. Yields the session's read and
    write streams as the SDK's own `stdio_server` makes them on its line (anyio memory object streams on 1.x,
    the SDK's context streams on 2.x), for `Server.run`."""
    if wire not in ("auto", "json", "msgpack"):
        raise ValueError("wire must be 'auto', 'json' or 'msgpack'")
    state = _ServerWire(wire, native_bytes, encoding=encoding, limits=limits)
    if wire == "msgpack":
        state.on_frames()
    restore: list[Any] = []
    try:
        if stdin is None:
            buffer, release = _binary_stdio(0)
            restore.append(release)
            stdin = anyio.wrap_file(buffer)
        if stdout is None:
            buffer, release = _binary_stdio(1)
            restore.append(release)
            stdout = anyio.wrap_file(buffer)

        read_stream_writer, read_stream = create_message_streams(SessionMessage | Exception)
        write_stream, write_stream_reader = create_message_streams(SessionMessage)
        # Taken without a checkpoint when free (nearly always: only a refusal's reply races the writer).
        write_lock = anyio.Lock(fast_acquire=True)
        out_file = stdout.wrapped if isinstance(stdout, anyio.AsyncFile) else None

        async def write(data: bytes) -> None:
            async with write_lock:
                if out_file is not None:
                    # One worker-thread round trip per message where AsyncFile's write + flush take two.
                    await anyio.to_thread.run_sync(_write_and_flush, out_file, data)
                else:
                    await stdout.write(data)
                    await stdout.flush()

        async def stdin_reader() -> None:
            reader = state.reader
            try:
                async with read_stream_writer:
                    while True:
                        chunk = await stdin.read1(READ_SIZE)
                        if not chunk:
                            reader.close()
                            return
                        reader.feed(chunk)
                        while (item := reader.next()) is not None:
                            kind, data = item
                            if kind == FRAME and state.send == SEND_JSON:
                                state.on_frames()  # the client's first byte chose msgpack-v1 (7.2)
                            outcome = state.read(kind, data)
                            if outcome.reply is not None:
                                await write(outcome.reply)
                            hold = None
                            if isinstance(outcome.deliver, SessionMessage):
                                state.incoming(outcome.deliver, kind)
                                hold = state.request_hold(outcome.deliver)
                            if outcome.deliver is not None:
                                with serving(hold):  # the SDK's handler runs in this context (2.x)
                                    await read_stream_writer.send(outcome.deliver)
            except WireError as error:  # a framing error: report it, then the connection ends (SPEC 5.1)
                with _suppress_closed():
                    await read_stream_writer.send(error)
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async def stdout_writer() -> None:
            try:
                async with write_stream_reader:
                    async for session_message in write_stream_reader:
                        try:
                            data = state.outgoing(message_model(session_message.message))
                        except (WireError, TypeError, HeldMediaGone) as exc:
                            # A message this wire cannot carry: reported, nothing written, the connection goes on.
                            await read_stream_writer.send(exc)
                            continue
                        await write(data)
            except anyio.ClosedResourceError:  # pragma: no cover
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stdin_reader)
            tg.start_soon(stdout_writer)
            yield read_stream, write_stream
    finally:
        for release in reversed(restore):
            if release is not None:
                release()


def _write_and_flush(file: Any, data: bytes) -> None:
    file.write(data)
    file.flush()


class _suppress_closed:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, *_: Any) -> bool:
        return kind is not None and issubclass(kind, (anyio.ClosedResourceError, anyio.BrokenResourceError))
