"""Every difference between the `mcp` SDK lines this package runs on (1.24 to 1.x, 2.0 to 2.x), in one place.

Each shim is chosen by feature detection (what the installed SDK has), never by its version number, so a later
release that keeps the public API keeps working. Per shim: which SDK lines need it and why.

- `types`: `mcp.types` is the models' public module on both lines (2.x re-exports the `mcp_types` package).
- `message_model` / `session_message` / `validate_message` / `validate_message_json`: on 1.x a
  `SessionMessage` holds a `JSONRPCMessage` *RootModel* around the request/response/... model; on 2.x
  `JSONRPCMessage` is a plain union and `SessionMessage` holds the model itself (validated through
  `mcp_types.jsonrpc_message_adapter`). The transports work on the inner model on both.
- `create_message_streams`: 2.x's `stdio_server` hands the session context-carrying memory streams
  (`mcp.shared._context_streams`, private); 1.x uses anyio's memory object streams.
- `claim_stdio`: 2.x's `stdio_server` points fd 0 at the null device and fd 1 at stderr while serving (private
  helpers in `mcp.server.stdio`); 1.x's only wraps `sys.stdin.buffer`/`sys.stdout.buffer`, and so do we there.
- `spawn_server` / `stop_server` / `drain_stdout`: the SDK's process helpers of `mcp.client.stdio` (private,
  the same on 1.x and 2.x for spawning; 2.x adds the stop/drain ones) where present, else public anyio calls.
- `HTTP_UNAVAILABLE` (the client): the 2.3 Streamable HTTP client (`client/streamable_http.py`) subclasses the
  SDK's and reuses its internals of 2.3 (`httpx2`, `mcp.client._transport`, `_unfollowed_redirect`...). Where
  they are absent (1.x, 2.0-2.2) the client is `client/streamable_http_httpx.py`, on the SDK's public names
  (`mcp_msgpack.client.http_client_module` picks it); stdio works on every line.
- `HTTP_SERVER_UNAVAILABLE` (the server, `_HTTP_SERVER_NEEDS`): the Streamable HTTP server app
  (`server/app.py`, `streamable_http.py`, `streamable_http_manager.py`, `streamable_http_modern.py`) subclasses
  the SDK's session manager and transport and drives the SDK's server loop (`mcp.server.runner`, the
  `JSONRPCDispatcher`, the 2026-07-28 entry `mcp.server._streamable_http_modern`, `mcp.shared.inbound`'s
  ladder): every 2.x has them (2.0 on). 1.x has none of them: there the app runs on the SDK's session loop
  (`SESSION_LOOP_SERVER`, below). What the older lines lack, shimmed in `server/streamable_http_sdk_lines.py`,
  each by what the SDK has:
  - the manager's session admission (`_admit_session`, `max_sessions`, `DEFAULT_MAX_SESSIONS`; 1.30, 2.2+): on
    1.24 and 2.0-2.1 the manager builds the SDK's own transport inline when a session opens, so our manager
    opens the session itself there (2.2's order: admit under the lock, serve the opening request, discard it
    if refused);
  - the transport's own idle clock (`idle_timeout`, 1.30, 2.2+; the default 30 minutes,
    `DEFAULT_SESSION_IDLE_TIMEOUT`): on 2.0-2.1 the manager set a deadline per request, so a session with a GET
    stream open longer than the timeout was reaped, and 1.24 kept a session until its DELETE; we keep 2.2's
    rule on both (`IdleClock`: no request in flight for the timeout ends the session);
  - the transport's `_handle_request` split (1.30, 2.2+): on 1.24 and 2.0-2.1 `handle_request` is the whole
    handler;
  - `mcp.shared.inbound.unsupported_protocol_version_rejection` and the modern entry's `_INVALID_BODY` (2.1+):
    on 2.0 the same rejection and body, built from the public `MODERN_PROTOCOL_VERSIONS`. A JSON notification
    POSTed on the 2026-07-28 path is the SDK's own to answer: 2.0 refuses it 400, 2.1+ accept it 202 (ours, on
    msgpack-v1, 202 on every line).
  Not ours to shim: 2.0's `MCPServer` also puts a tool's `-> ImageContent` return in `structuredContent` (its
  base64 again; 2.1+ leaves content blocks out), a reply the transport carries as the server made it.
- `SESSION_LOOP_SERVER` (the server on 1.x, 1.24 on: messages in the RootModel, `Server.run`, the 1.x transport
  and session manager): the app runs on the SDK's 1.x transport and manager, each session (or stateless request)
  run by `Server.run(read, write, init_options, stateless=...)` (2.x: `serve_loop` / `serve_connection`). The
  transport works on the inner model and hands the SDK `sdk_message(model)`. `server/streamable_http_sdk_lines.py`
  takes each name from where the line keeps it: `MCP_PROTOCOL_VERSION_HEADER` (2.x `mcp.shared.inbound`, 1.x
  `mcp.server.streamable_http`), the handshake revisions (2.x `mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`,
  1.x `mcp.shared.version.SUPPORTED_PROTOCOL_VERSIONS`), `StreamableHTTPASGIApp` (2.x's manager module; 1.x
  keeps it in FastMCP's: ours, the same one method), `REQUEST_STREAM_BUFFER_SIZE`/`SSEEvent` (unnamed in 1.24)
  and the manager's options (1.24 takes no idle timeout, body limit nor session cap: ours keeps and enforces
  them, the idle timeout by the same `IdleClock` as 2.0-2.1). 2.3's `_message_metadata` and
  `_terminate_unanswered_request` are absent on 1.x: a message is framed with
  `ServerMessageMetadata(request_context=request)`, as 1.x's own transport frames it. 1.24 also lacks
  `_mint_priming_event` and `_run_sse_writer` (`PrimingAndSseWriter`, a mixin after the SDK's class in the MRO,
  so the SDK's own win where present) and `authorization_context` (sessions are then not bound to a
  credential, as under 1.24's own app). 1.x has no 2026-07-28 path: such a request is the transport's 400
  unsupported version, and FastMCP 4's app and the modern module refuse to load (`require_http_2x_server`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Awaitable, Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, BinaryIO, TextIO

import anyio
import mcp.types as types
from anyio.abc import Process
from mcp.shared.message import SessionMessage

try:
    SDK_VERSION = version("mcp")
except PackageNotFoundError:  # pragma: no cover - an unpackaged checkout of the SDK
    SDK_VERSION = "unknown"

# --- messages: RootModel (1.x) or the model itself (2.x) ----------------------------------------------------

_ADAPTER: Any = getattr(types, "jsonrpc_message_adapter", None)
_MESSAGE: Any = types.JSONRPCMessage  # a RootModel class on 1.x, a union on 2.x: typed per line
WRAPPED_MESSAGES = _ADAPTER is None
"""True on 1.x: `SessionMessage.message` is a `JSONRPCMessage` RootModel whose `.root` is the model."""


def message_model(message: Any) -> Any:
    """The request/notification/response/error model of a `SessionMessage`'s `.message` (either line)."""
    return message.root if WRAPPED_MESSAGES and isinstance(message, _MESSAGE) else message


def session_message(model: Any) -> SessionMessage:
    """A `SessionMessage` around one request/notification/response/error model."""
    if WRAPPED_MESSAGES:
        return SessionMessage(_MESSAGE(model))
    return SessionMessage(model)


def validate_message(value: object) -> Any:
    """A JSON-RPC message model from plain values (raises pydantic's ValidationError)."""
    if WRAPPED_MESSAGES:
        return _MESSAGE.model_validate(value).root
    return _ADAPTER.validate_python(value, by_name=False)


def validate_message_json(data: bytes) -> Any:
    """A JSON-RPC message model from a JSON line, as the SDK's stdio transports validate it."""
    if WRAPPED_MESSAGES:
        return _MESSAGE.model_validate_json(data).root
    return _ADAPTER.validate_json(data, by_name=False)


# --- memory streams ---------------------------------------------------------------------------------------

_context_streams: Any = None
if importlib.util.find_spec("mcp.shared._context_streams") is not None:  # 2.x
    from mcp.shared._context_streams import create_context_streams as _context_streams


def create_message_streams(item_type: Any) -> tuple[Any, Any]:
    """A (send, receive) pair for the session, as the SDK's own `stdio_server` makes it on this line."""
    if _context_streams is not None:
        return _context_streams[item_type](0)  # type: ignore[no-any-return]
    return anyio.create_memory_object_stream[item_type](0)


# --- the server's stdio -----------------------------------------------------------------------------------


def claim_stdio(fd: int) -> tuple[BinaryIO, Callable[[], None] | None]:
    """fd 0 or 1 as a binary stream and how to release it: claimed as the SDK's stdio_server claims it (2.x:
    handlers and children then read EOF and their stray output misses the wire), or as 1.x's takes it."""
    import mcp.server.stdio as sdk_stdio

    claim = getattr(sdk_stdio, "_claim_fd", None)
    stdin_diversion = getattr(sdk_stdio, "_open_stdin_diversion", None)
    stdout_diversion = getattr(sdk_stdio, "_open_stdout_diversion", None)
    if claim is not None and stdin_diversion is not None and stdout_diversion is not None:
        if fd == 0:
            return claim(0, sys.stdin, "rb", stdin_diversion)  # type: ignore[no-any-return]
        return claim(1, sys.stdout, "wb", stdout_diversion)  # type: ignore[no-any-return]
    return (sys.stdin.buffer if fd == 0 else sys.stdout.buffer), None


# --- the client's child process ---------------------------------------------------------------------------

WRITER_FLUSH_TIMEOUT: float = 2.0
"""How long shutdown waits for the writer to flush (2.x's own value where it has one)."""
PROCESS_TERMINATION_TIMEOUT: float = 2.0


def _sdk_client_stdio() -> Any:
    import mcp.client.stdio as sdk_stdio

    return sdk_stdio


_client_stdio = _sdk_client_stdio()
WRITER_FLUSH_TIMEOUT = float(getattr(_client_stdio, "_WRITER_FLUSH_TIMEOUT", WRITER_FLUSH_TIMEOUT))
PROCESS_TERMINATION_TIMEOUT = float(getattr(_client_stdio, "PROCESS_TERMINATION_TIMEOUT", PROCESS_TERMINATION_TIMEOUT))


def default_environment() -> dict[str, str]:
    """The environment the SDK gives a server it spawns (public on both lines)."""
    return dict(_client_stdio.get_default_environment())


async def spawn_server(command: str, args: list[str], env: dict[str, str], errlog: TextIO, cwd: Any) -> Process:
    """The server's process, spawned as the SDK spawns it (its helpers, which resolve the command on Windows
    and put the child in its own process group or job) or, without them, with anyio's `open_process`."""
    resolve = getattr(_client_stdio, "_get_executable_command", None)
    create = getattr(_client_stdio, "_create_platform_compatible_process", None)
    if resolve is not None and create is not None:
        resolved = await resolve(command) if _is_coroutine_function(resolve) else resolve(command)
        return await create(command=resolved, args=args, env=env, errlog=errlog, cwd=cwd)  # type: ignore[no-any-return]
    return await anyio.open_process([command, *args], env=env, stderr=errlog, cwd=cwd, start_new_session=True)


def _is_coroutine_function(function: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(function)


async def drain_stdout(process: Process) -> None:
    """Reads what the server still writes after the reader stopped, so it never blocks on a full pipe (2.x's
    helper; 1.x's transport does not drain, nor do we there)."""
    drain: Callable[[Process], Awaitable[None]] | None = getattr(_client_stdio, "_drain_stdout", None)
    if drain is not None:
        await drain(process)


async def stop_server(process: Process) -> None:
    """Ends the server: the SDK's stop (2.x) or, as 1.x's transport does, stdin closed, a wait, then terminate
    and kill."""
    stop: Callable[[Process], Awaitable[None]] | None = getattr(_client_stdio, "_stop_server_process", None)
    if stop is not None:
        await stop(process)
        return
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            await process.stdin.aclose()
    with anyio.move_on_after(PROCESS_TERMINATION_TIMEOUT):
        await process.wait()
    if process.returncode is None:
        terminate_tree = getattr(_client_stdio, "_terminate_process_tree", None)
        if terminate_tree is not None:
            with contextlib.suppress(Exception):
                await terminate_tree(process)
        else:  # pragma: no cover - every 1.x release has it
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        with anyio.move_on_after(PROCESS_TERMINATION_TIMEOUT):
            await process.wait()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
    with contextlib.suppress(Exception):
        await process.aclose()


async def aclose_all(*resources: Any) -> None:
    """Closes every stream, whatever the others do (2.x's helper where present)."""
    close_all: Callable[..., Awaitable[None]] | None = getattr(_client_stdio, "_aclose_all", None)
    if close_all is not None:
        await close_all(*resources)
        return
    for resource in resources:
        with contextlib.suppress(Exception):
            await resource.aclose()


# --- the Streamable HTTP side -----------------------------------------------------------------------------

_HTTP_NEEDS = (
    ("httpx2", None),
    ("mcp.client._transport", "TransportStreams"),
    ("mcp.client.streamable_http", "_unfollowed_redirect"),
    ("mcp.client.streamable_http", "DEFAULT_MAX_SSE_EVENT_SIZE"),
    ("mcp.shared._httpx_utils", "stream_within_origin"),
    ("mcp.server.runner", "serve_connection"),
    ("mcp.server._streamable_http_modern", None),
)


def _unavailable(needs: tuple[tuple[str, str | None], ...]) -> str | None:
    import importlib

    for module, name in needs:
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            return f"{module} is missing"
        if name is not None and not hasattr(loaded, name):
            return f"{module}.{name} is missing"
    return None


HTTP_UNAVAILABLE: str | None = _unavailable(_HTTP_NEEDS)
"""None where the 2.3 Streamable HTTP client works (mcp 2.3 and later releases that keep what it reuses);
otherwise what the installed SDK lacks (the client is then `client/streamable_http_httpx.py`)."""


class SdkFeatureUnavailable(ImportError):
    """A feature of this package that the installed `mcp` SDK cannot carry."""


_WORKS_EVERYWHERE = (
    "On every supported SDK line (mcp 1.24+ and 2.0+) these work: streamable_http_client (the Streamable HTTP "
    "client, msgpack-v1 with native bytes and JSON fallback, from mcp_msgpack or mcp_msgpack.client), the stdio "
    "transports both ways, call_tool_native and mcp-msgpack-run"
)


def _refuse(feature: str, internals: str, lacking: str | None, also: str = "") -> None:
    if lacking is not None:
        raise SdkFeatureUnavailable(
            f"mcp_msgpack: {feature} needs the Streamable HTTP {internals} (installed: mcp {SDK_VERSION}; "
            f"{lacking}). {_WORKS_EVERYWHERE}{also}."
        )


def require_http(feature: str) -> None:
    """Raises `SdkFeatureUnavailable` naming the SDK and what it lacks, where the 2.3 HTTP client cannot run."""
    _refuse(
        feature, "client internals of mcp 2.3 or later", HTTP_UNAVAILABLE,
        "; the HTTP server side on every 2.x and on 1.x from 1.24",
    )


# --- the Streamable HTTP server on 2.x (the SDK's server loop and dispatcher) ----------------------------------

_HTTP_SERVER_NEEDS = (
    ("mcp.server.runner", "serve_connection"),
    ("mcp.server.runner", "serve_loop"),
    ("mcp.server.runner", "serve_one"),
    ("mcp.server.connection", "Connection"),
    ("mcp.shared.jsonrpc_dispatcher", "JSONRPCDispatcher"),
    ("mcp.shared.inbound", "classify_inbound_request"),
    ("mcp.server._streamable_http_modern", "handle_modern_request"),
    ("mcp.server.streamable_http_manager", "StreamableHTTPSessionManager"),
)

HTTP_SERVER_UNAVAILABLE: str | None = _unavailable(_HTTP_SERVER_NEEDS)
"""None where the 2.x server internals are there (every mcp 2.x from 2.0); otherwise what the SDK lacks (on
1.x the app runs on the session loop instead: `SESSION_LOOP_SERVER`)."""

# --- the Streamable HTTP server on 1.x (a session loop: `Server.run`) ----------------------------------------

_SESSION_LOOP_SERVER_NEEDS = (
    ("mcp.server.streamable_http", "MCP_PROTOCOL_VERSION_HEADER"),
    ("mcp.server.streamable_http", "StreamableHTTPServerTransport"),
    ("mcp.server.streamable_http_manager", "StreamableHTTPSessionManager"),
    ("mcp.shared.version", "SUPPORTED_PROTOCOL_VERSIONS"),
    ("mcp.server.lowlevel.server", "Server"),
)


def _session_loop_server_unavailable() -> str | None:
    import importlib

    if not WRAPPED_MESSAGES:
        return "its messages are not 1.x's JSONRPCMessage RootModel"
    lacking = _unavailable(_SESSION_LOOP_SERVER_NEEDS)
    if lacking is not None:
        return lacking
    server = importlib.import_module("mcp.server.lowlevel.server").Server
    if not (hasattr(server, "run") and hasattr(server, "create_initialization_options")):
        return "mcp.server.lowlevel.Server.run is missing"
    return None


SESSION_LOOP_SERVER: bool = _session_loop_server_unavailable() is None
"""True on 1.x: the Streamable HTTP server side runs there on the SDK's 1.x transport and session manager, each
session (or stateless request) served by `Server.run(read, write, init_options, stateless=...)`
(server/streamable_http_sdk_lines.py holds the per-line names and shims)."""


def require_http_server(feature: str) -> None:
    """Raises `SdkFeatureUnavailable` naming the SDK and what it lacks, where the HTTP server side cannot run
    (it runs on every 2.x, and on 1.x's session loop)."""
    if SESSION_LOOP_SERVER:
        return
    _refuse(feature, "server internals of mcp 2.0 or later (or mcp 1.x's from 1.24)", HTTP_SERVER_UNAVAILABLE)


def require_http_2x_server(feature: str) -> None:
    """`require_http_server` for what only the 2.x server internals carry (FastMCP 4's app, the 2026-07-28 path),
    saying on 1.x what does run there."""
    if SESSION_LOOP_SERVER:
        raise SdkFeatureUnavailable(
            f"mcp_msgpack: {feature} needs the Streamable HTTP server internals of mcp 2.0 or later (installed: "
            f"mcp {SDK_VERSION}; {HTTP_SERVER_UNAVAILABLE}). On mcp 1.x the server side is "
            "streamable_http_app(server) for a mcp.server.fastmcp.FastMCP or low-level Server (revisions through "
            "2025-11-25), with the HTTP client, the stdio transports, call_tool_native and mcp-msgpack-run."
        )
    require_http_server(feature)



__all__ = [
    "HTTP_SERVER_UNAVAILABLE",
    "HTTP_UNAVAILABLE",
    "SDK_VERSION",
    "SESSION_LOOP_SERVER",
    "SdkFeatureUnavailable",
    "aclose_all",
    "claim_stdio",
    "create_message_streams",
    "default_environment",
    "drain_stdout",
    "message_model",
    "require_http",
    "require_http_2x_server",
    "require_http_server",
    "session_message",
    "spawn_server",
    "stop_server",
    "types",
    "validate_message",
    "validate_message_json",
]
