"""The package's shape: no import circle among its modules (read from their source, imports inside functions
included, so none can be hidden there), and the names and module paths users import keep working."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import mcp_msgpack
import pytest
from mcp_msgpack.shared.sdk_compat import HTTP_SERVER_UNAVAILABLE, HTTP_UNAVAILABLE, SESSION_LOOP_SERVER, SdkFeatureUnavailable

PACKAGE = "mcp_msgpack"
ROOT = Path(mcp_msgpack.__file__).parent


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its __init__.py)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()  # a module's relative imports start from its package
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _loaded_by(importer: str, target: str, modules: dict[str, Path]) -> set[str]:
    """What importing `target` from `importer` runs of the package: `target`, and each of its packages that
    is not one of the importer's own (those are already being imported when the importer runs)."""
    own = importer.split(".")
    parts = target.split(".")
    out = set()
    for end in range(1, len(parts) + 1):
        name = ".".join(parts[:end])
        if name in modules and parts[:end] != own[:end]:
            out.add(name)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in its source."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(name, is_package, node)
                # `from pkg import sub` imports the submodule; `from mod import name` only mod.
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            for target in targets:
                if target == PACKAGE or target.startswith(PACKAGE + "."):
                    graph[name] |= _loaded_by(name, target, modules) - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle in `graph` as a path that ends where it starts, or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack = [(start, iter(sorted(graph[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                return path[path.index(child) :] + [child]
            elif child not in done:
                stack.append((child, iter(sorted(graph.get(child, ())))))
                path.append(child)
                on_path.add(child)
    return None


def test_the_cycle_finder_finds_a_circle_and_passes_a_tree():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_relative_and_function_level_imports():
    graph = import_graph()
    assert "mcp_msgpack.wire.jsonrpc" in graph["mcp_msgpack.wire.decode"]
    assert "mcp_msgpack.wire.media_slots" in graph["mcp_msgpack.shared.media_conversion"]  # from ..wire.x
    assert "mcp_msgpack.wire" in graph["mcp_msgpack.shared.media_conversion"]  # its package runs first
    assert "mcp_msgpack.server.stdio" in graph["mcp_msgpack.run"]  # imported inside a function


def test_no_import_circle_inside_the_package():
    assert find_cycle(import_graph()) is None


def test_the_wire_imports_nothing_above_it():
    """wire/ is the codec: it must not reach up into the transports (the circle the move broke)."""
    graph = import_graph()
    for module, targets in graph.items():
        if module.startswith("mcp_msgpack.wire"):
            assert all(t.startswith("mcp_msgpack.wire") for t in targets), (module, targets)


def test_the_public_names_stay_at_the_package_root():
    expected = {
        "NativeCallToolResult",
        "ReceiveLimits",
        "SDK_VERSION",
        "SdkFeatureUnavailable",
        "WireError",
        "__version__",
        "call_tool_native",
        "from_session_message",
        "native_audio",
        "native_image",
        "stdio_client",
        "stdio_server",
        "streamable_http_app",
        "streamable_http_client",
        "to_session_message",
    }
    assert set(mcp_msgpack.__all__) == expected
    for name in expected - {"streamable_http_app"}:  # the HTTP client too: on every SDK line
        assert getattr(mcp_msgpack, name) is not None
    if HTTP_SERVER_UNAVAILABLE is None or SESSION_LOOP_SERVER:  # mcp 2.x, or 1.x's session loop
        assert mcp_msgpack.streamable_http_app is not None
    else:  # the server app on an SDK without mcp 2.x's HTTP internals: a clear error when used, not at import
        with pytest.raises(SdkFeatureUnavailable, match="streamable_http_app.*streamable_http_client"):
            mcp_msgpack.streamable_http_app  # noqa: B018 - the attribute's loading is what raises


@pytest.mark.skipif(HTTP_UNAVAILABLE is not None, reason=f"Streamable HTTP needs mcp 2.3+ internals: {HTTP_UNAVAILABLE}")

def test_the_documented_old_module_paths_still_give_the_same_objects():
    from mcp_msgpack.client.streamable_http import MsgpackStreamableHTTPTransport

    old = {
        "mcp_msgpack.client_stdio": {"stdio_client": mcp_msgpack.stdio_client},
        "mcp_msgpack.server_stdio": {"stdio_server": mcp_msgpack.stdio_server},
        "mcp_msgpack.messages": {"from_session_message": mcp_msgpack.from_session_message},
        "mcp_msgpack.http": {
            "streamable_http_client": mcp_msgpack.streamable_http_client,
            "streamable_http_app": mcp_msgpack.streamable_http_app,
            "MsgpackStreamableHTTPTransport": MsgpackStreamableHTTPTransport,
        },
    }
    for module, names in old.items():
        loaded = importlib.import_module(module)
        for name, value in names.items():
            assert getattr(loaded, name) is value, (module, name)
    fastmcp_old = importlib.import_module("mcp_msgpack.http.fastmcp_transport")
    fastmcp_new = importlib.import_module("mcp_msgpack.client.fastmcp_transport")
    assert fastmcp_old.MsgpackStreamableHttpTransport is fastmcp_new.MsgpackStreamableHttpTransport
