"""`mcp-msgpack-run`: run an unforked Python MCP server with this package's stdio transport in place of the
SDK's, so that it answers JSON and msgpack-v1 clients alike.

    mcp-msgpack-run [--wire auto|json|msgpack] [--no-native-bytes] -- COMMAND [ARGS...]
    mcp-msgpack-run -- -m MODULE [ARGS...]
    mcp-msgpack-run -- path/to/server.py [ARGS...]

How: `mcp.server.stdio.stdio_server` is replaced by `mcp_msgpack.stdio_server` before the target runs, and
every module already holding the SDK's function under any name (`from mcp.server.stdio import stdio_server`
ran before) gets the replacement too, after the target's entry point is loaded. COMMAND is a console script
installed in this Python environment (looked up by name, not run as a subprocess), `-m MODULE`, or a .py file.
It works for servers that serve stdio through `mcp.server.stdio.stdio_server()` with no arguments, as
`MCPServer.run()` / `run_stdio_async()` and the low-level `Server.run` examples do; a server that passes its
own streams, or writes its own stdio loop, keeps the SDK's JSON transport.
"""

from __future__ import annotations

import argparse
import atexit
import os
import runpy
import sys
from contextlib import asynccontextmanager
from collections.abc import AsyncGenerator
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ._version import __version__
from .shared.encodings import ENCODINGS
from .shared.sdk_compat import SDK_VERSION

_served = False
"""Whether the target entered this package's stdio_server (a server with its own stdio loop never does)."""


def install(**options: Any) -> None:
    """Puts mcp_msgpack's stdio_server in place of the SDK's, in the SDK module and wherever it was imported."""
    import mcp.server.stdio as sdk_stdio

    from .server.stdio import stdio_server

    original = getattr(sdk_stdio, "_mcp_msgpack_original", sdk_stdio.stdio_server)

    @asynccontextmanager
    async def replacement(stdin: Any = None, stdout: Any = None) -> AsyncGenerator[Any, None]:
        if stdin is not None or stdout is not None:  # the server's own (text) streams: keep the SDK's transport
            async with original(stdin, stdout) as streams:
                yield streams
            return
        global _served
        _served = True
        async with stdio_server(**options) as streams:
            yield streams

    replacement.__doc__ = "mcp_msgpack.stdio_server in place of mcp.server.stdio.stdio_server (mcp-msgpack-run)"
    sdk_stdio._mcp_msgpack_original = original  # type: ignore[attr-defined]
    sdk_stdio.stdio_server = replacement
    rebind(original, replacement)


def _say_if_unserved(target: list[str]) -> None:
    if not _served:
        print(
            f"mcp-msgpack-run: {' '.join(target)} never called mcp.server.stdio.stdio_server() without arguments: it "
            "serves stdio with its own loop or streams, so it spoke the SDK's JSON lines, not msgpack-v1",
            file=sys.stderr,
        )


def rebind(original: Any, replacement: Any) -> int:
    """Replaces `original` by `replacement` in every loaded module's globals. Returns how many."""
    count = 0
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict) or namespace.get("__name__") == __name__:
            continue
        for name, value in list(namespace.items()):
            if value is original:
                namespace[name] = replacement
                count += 1
    return count


def _entry_point(command: str) -> EntryPoint | None:
    name = os.path.basename(command)
    found = entry_points(group="console_scripts", name=name)
    for ep in found:
        return ep
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="mcp-msgpack-run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--wire", choices=("auto", "json", "msgpack"), default="auto")
    parser.add_argument("--no-native-bytes", action="store_true", help="do not offer the native-bytes extension")
    parser.add_argument("--encoding", choices=ENCODINGS, default="cheapest-cpu")
    parser.add_argument("--version", action="version", version=f"mcp-msgpack-run {__version__} (mcp {SDK_VERSION})")
    parser.add_argument("target", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    args = parser.parse_args(argv)
    target = args.target[1:] if args.target[:1] == ["--"] else args.target
    if not target:
        parser.error("give the server to run after --")
    install(wire=args.wire, native_bytes=not args.no_native_bytes, encoding=args.encoding)
    atexit.register(_say_if_unserved, target)
    import mcp.server.stdio as sdk_stdio

    original, replacement = sdk_stdio._mcp_msgpack_original, sdk_stdio.stdio_server  # type: ignore[attr-defined]
    if target[0] == "-m":
        if len(target) < 2:
            parser.error("-m needs a module")
        sys.argv = [target[1], *target[2:]]
        runpy.run_module(target[1], run_name="__main__", alter_sys=True)
        return
    if target[0].endswith(".py"):
        sys.argv = target
        runpy.run_path(target[0], run_name="__main__")
        return
    ep = _entry_point(target[0])
    if ep is None:
        parser.error(f"{target[0]} is not a console script of this Python environment ({sys.executable})")
    func = ep.load()
    rebind(original, replacement)  # modules the entry point imported before we could patch
    sys.argv = target
    result = func()
    if isinstance(result, int):
        sys.exit(result)


if __name__ == "__main__":
    main()
