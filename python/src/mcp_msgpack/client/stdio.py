"""`stdio_client`: the drop-in for `mcp.client.stdio.stdio_client` that speaks msgpack-v1 (SPEC 7).

On wire='auto' it starts in MCP's JSON lines and offers the upgrade on each request until a result settles
it (7.1), so a JSON-only server simply answers in JSON: no timeout, nothing to configure.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import StdioServerParameters
from mcp.shared.message import SessionMessage

from ..shared import sdk_compat
from ..shared.sdk_compat import message_model, types
from ..shared.extension import NATIVE_RESULT_META, announce, announced_version
from ..shared.http_negotiation import CLIENT_CAPABILITIES_META, is_modern_request
from ..shared.stdio_connection import MSGPACK_V1, READ_SIZE, SEND_FRAMES, SEND_JSON, SEND_MIXED, WIRE_META, WireState, strip_wire_member, wire_member
from ..wire import FRAME, ReceiveLimits, StreamReader, WireError
from ..wire.media_slots import media_slots
from ..wire.reader import FRAMES, JSON, MIXED


OWN_DISCOVER_ID = "mcp-msgpack/discover"
"""The id of the client's own server/discover (a string: the SDK numbers its requests)."""
OWN_DISCOVER_WAIT = 5.0
"""Seconds a request with media waits for the answer to our own discover (as the TS client's OWN_DISCOVER_WAIT_MS)."""


class _ClientWire(WireState):
    """The client's side of the upgrade (7.1) and of the native-bytes negotiation (8.1)."""

    def __init__(self, wire: str, native_bytes: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.wire = wire
        self.native_bytes = native_bytes
        self.settled = wire != "auto"
        self.offering: set[object] = set()  # ids of requests that carried the offer
        self.native_offer_id: object = None
        # 2026-07-28 requests that offered the extension in their own `_meta` (SPEC 8.1 rule 4): each one's
        # answer may carry bin (rule 5), and nothing else by that offer.
        self.offered_ids: set[object] = set()
        self.native_advertised = False  # a server/discover result read as a frame advertised it (rule 7)
        # On wire='auto' the SDK's 2026-07-28 requests that carried the upgrade offer, with their `_meta` as the
        # SDK wrote it: the server never advertises native bytes on JSON (rule 6), so when the upgrade is
        # accepted in the answer to one of them, we ask again with our own server/discover, as a frame.
        self.offering_meta: dict[object, dict[str, Any]] = {}
        self.own_discover: bytes | None = None  # that request, to write right after the switch point
        self.advertisement_known = anyio.Event()  # set once our own discover is answered, or none will be sent
        if self.settled or not native_bytes:
            self.advertisement_known.set()
        self.wire_selected: str | None = None if wire == "auto" else ("msgpack" if wire == "msgpack" else "json")
        self.reader = StreamReader(FRAMES if wire == "msgpack" else JSON, self.max_bytes)
        if wire == "msgpack":
            self.send = SEND_FRAMES

    def outgoing(self, message: types.JSONRPCMessage) -> bytes:
        if isinstance(message, types.JSONRPCRequest):
            params = dict(message.params or {})
            meta = dict(params.get("_meta") or {})
            if NATIVE_RESULT_META in meta:  # call_tool_native's private marker: never leaves the process
                del meta[NATIVE_RESULT_META]
                self.native_results.add(message.id)
            if not self.settled:
                if self.native_bytes and is_modern_request(meta) and message.id != OWN_DISCOVER_ID:
                    self.offering_meta[message.id] = dict(meta)
                meta[WIRE_META] = {"offer": [MSGPACK_V1], "mixed": True}
                self.offering.add(message.id)
            if self.native_bytes and message.method == "initialize" and (self.send != SEND_JSON or not self.settled):
                params["capabilities"] = announce(params.get("capabilities") or {})
                self.native_offer_id = message.id
            offers_per_request = self.native_bytes and self.send != SEND_JSON and is_modern_request(meta)
            if offers_per_request:
                # On msgpack-v1 only (rule 4): as a frame even on a mixed stream, like the TS client's.
                declared = meta.get(CLIENT_CAPABILITIES_META)
                meta[CLIENT_CAPABILITIES_META] = announce(declared if isinstance(declared, dict) else {})
                self.offered_ids.add(message.id)
            if meta:
                params["_meta"] = meta
            elif "_meta" in params:
                del params["_meta"]
            if params:
                message = message.model_copy(update={"params": params})
            else:
                message = types.JSONRPCRequest(jsonrpc="2.0", id=message.id, method=message.method)
            # Rule 7: bin in the request's media fields once a server/discover result on msgpack-v1 advertised it.
            native = offers_per_request and self.native_advertised and message.method != "server/discover"
            return self.encode(message, as_frame=offers_per_request, native=native)
        if isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self.offered_ids.discard((message.params or {}).get("requestId"))
        return self.encode(message)

    def may_receive_bin(self) -> bool:
        return self.native_receive or bool(self.offered_ids)

    def bin_allowed_in(self, value: dict[str, Any]) -> bool:
        """Bin in the session's messages once confirmed (rules 1-3), else only in the answer to an offering
        2026-07-28 request (rule 5)."""
        return self.native_receive or ("method" not in value and value.get("id") in self.offered_ids)

    def incoming(self, message: SessionMessage, kind: str) -> bool:
        """Settles the upgrade on the first result to an offering request, and notes a native confirmation or
        advertisement. True for the answer to our own server/discover, which the SDK never sees."""
        model = message_model(message.message)
        if not isinstance(model, (types.JSONRPCResponse, types.JSONRPCError)):
            return False
        offered = model.id in self.offered_ids
        self.offered_ids.discard(model.id)
        if offered and kind == FRAME and isinstance(model, types.JSONRPCResponse) and "supportedVersions" in model.result:
            self.native_advertised = announced_version(model.result.get("capabilities")) == 1
        if model.id == OWN_DISCOVER_ID:
            self.advertisement_known.set()
            return True
        if isinstance(model, types.JSONRPCError):
            self.native_results.discard(model.id)
        if isinstance(model, types.JSONRPCResponse):
            self.native_results.discard(model.id)
            member = wire_member(model.result)
            if member is not None:
                strip_wire_member(model.result)
            if not self.settled and model.id in self.offering and kind != FRAME:
                self.settled = True
                self.offering.clear()
                if isinstance(member, dict) and member.get("accept") == MSGPACK_V1:
                    mixed = member.get("mixed") is True
                    # The switch point: bytes after this line are frames (or a mixed stream); we send msgpack-v1.
                    self.reader.mode = MIXED if mixed else FRAMES
                    self.send = SEND_MIXED if mixed else SEND_FRAMES
                    self.wire_selected = "msgpack"
                    self._discover_on_frames(self.offering_meta.get(model.id))
                else:
                    self.wire_selected = "json"
                self.offering_meta.clear()
                if self.own_discover is None:
                    self.advertisement_known.set()  # nothing to wait for: no own discover goes out
            if model.id == self.native_offer_id and self.send != SEND_JSON:
                version = announced_version(model.result.get("capabilities"))
                if version == 1:
                    self.native_send = self.native_receive = True
        return False

    def _discover_on_frames(self, meta: dict[str, Any] | None) -> None:
        """The upgrade was accepted in the answer to a 2026-07-28 request (SPEC 7.1), read as a JSON line, so
        it carried no advertisement (8.1 rule 6): our own server/discover, with the SDK's envelope, goes as
        the first frame after the switch point, and its answer tells whether our requests may carry bin
        (rule 7). One round trip, in parallel with the SDK's next request; only a request with media to send
        waits for it (`waits_for_advertisement`)."""
        if meta is None:
            return
        request = types.JSONRPCRequest(jsonrpc="2.0", id=OWN_DISCOVER_ID, method="server/discover", params={"_meta": meta})
        self.own_discover = self.outgoing(request)

    def take_own_discover(self) -> bytes | None:
        request, self.own_discover = self.own_discover, None
        return request

    def waits_for_advertisement(self, message: types.JSONRPCMessage) -> bool:
        """Whether this message is a request with media that could go as bin once the advertisement is known."""
        if self.advertisement_known.is_set() or not isinstance(message, types.JSONRPCRequest):
            return False
        holder = {"method": message.method, "params": message.params}
        return any(isinstance(h.get(k), str) and h.get(k) for h, k in media_slots(holder))


@asynccontextmanager
async def stdio_client(
    server: StdioServerParameters,
    errlog: TextIO = sys.stderr,
    *,
    native_bytes: bool = False,
    wire: str = "auto",
    encoding: str = "cheapest-cpu",
    limits: ReceiveLimits | None = None,
) -> AsyncGenerator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]], None]:
    """Spawns an MCP server and connects to it over stdin/stdout, in msgpack-v1 where the server speaks it.

    `wire`: 'auto' (default) starts in JSON lines and offers the upgrade (SPEC 7.1); 'msgpack' starts with a
    frame, for servers known to speak msgpack-v1 (a JSON-only server never answers it); 'json' never offers.
    `native_bytes` offers the extension (SPEC 8): media then travel as bytes, and reach the SDK as base64 (or
    as bytes through `call_tool_native`). `encoding` is what is sent on a mixed stream (7.4)."""
    if wire not in ("auto", "json", "msgpack"):
        raise ValueError("wire must be 'auto', 'json' or 'msgpack'")
    state = _ClientWire(wire, native_bytes, encoding=encoding, limits=limits)
    process = await sdk_compat.spawn_server(
        server.command, server.args, sdk_compat.default_environment() | (server.env or {}), errlog, server.cwd
    )
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    shutting_down = False
    writer_done = anyio.Event()
    write_lock = anyio.Lock()

    async def write(data: bytes) -> None:
        async with write_lock:
            await process.stdin.send(data)  # type: ignore[union-attr]

    async def stdout_reader() -> None:
        assert process.stdout
        reader = state.reader
        try:
            async with read_stream_writer:
                try:
                    while True:
                        try:
                            chunk = await process.stdout.receive(READ_SIZE)
                        except anyio.EndOfStream:
                            if not shutting_down:
                                reader.close()  # the server died mid-frame: truncated-frame (SPEC 5.1)
                            return
                        reader.feed(chunk)
                        while (item := reader.next()) is not None:
                            kind, data = item
                            outcome = state.read(kind, data)
                            if outcome.reply is not None:
                                await write(outcome.reply)
                            if isinstance(outcome.deliver, SessionMessage):
                                if state.incoming(outcome.deliver, kind):
                                    continue  # the answer to our own server/discover
                                if (own := state.take_own_discover()) is not None:
                                    await write(own)
                            if outcome.deliver is not None:
                                await read_stream_writer.send(outcome.deliver)
                except WireError as error:  # framing error: reported, then the connection ends (SPEC 5.1)
                    if not shutting_down:
                        await read_stream_writer.send(error)
                finally:
                    state.advertisement_known.set()  # no answer will come: nobody waits for it
                    await sdk_compat.drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass

    async def stdin_writer() -> None:
        assert process.stdin
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    model = message_model(session_message.message)
                    if state.waits_for_advertisement(model):
                        # Its media may then go as bin (rule 7). Bounded: a server that accepted the upgrade and
                        # never answers our discover must not hold the request; past it the media go as base64.
                        with anyio.move_on_after(OWN_DISCOVER_WAIT):
                            await state.advertisement_known.wait()
                    try:
                        data = state.outgoing(model)
                    except (WireError, TypeError) as exc:
                        await read_stream_writer.send(exc)
                        continue
                    await write(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk_compat.WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await sdk_compat.stop_server(process)
        await sdk_compat.aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
