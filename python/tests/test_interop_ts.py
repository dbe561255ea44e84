"""Cross-language over stdio: our Python client against the TypeScript media server, our TypeScript client and
the TypeScript SDK's stock client against our Python server, and an unforked PyPI server (mcp-server-git)
through mcp-msgpack-run called by our TypeScript client on MessagePack."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters
from wiretap import MEDIA_SERVER, NODE, PYTHON, ROOT, TAP, TS_MEDIA_SERVER, has_bin, recorded, ts_client

sys.path.insert(0, str(Path(MEDIA_SERVER).parent))
from media_server import TOOL_NAMES, pattern  # noqa: E402

from mcp_msgpack import call_tool_native, stdio_client  # noqa: E402

MIB5 = 5 * 1024 * 1024
RUN = str(Path(PYTHON).with_name("mcp-msgpack-run"))
GIT_SERVER = str(Path(PYTHON).with_name("mcp-server-git"))


def _built() -> None:
    assert Path(TS_MEDIA_SERVER).exists() and (ROOT / "packages" / "transport-msgpack" / "dist" / "esm").exists(), (
        "the TypeScript packages are not built: run npm run build"
    )


def test_python_client_reads_a_5_mib_image_from_the_ts_media_server_with_native_bytes(tmp_path):
    _built()
    media = tmp_path / "media"
    media.mkdir()
    (media / "big.png").write_bytes(pattern(MIB5))
    prefix = str(tmp_path / "wire")
    params = StdioServerParameters(command=PYTHON, args=[TAP, prefix, "--", NODE, TS_MEDIA_SERVER, str(media)])

    async def run():
        with anyio.fail_after(90):
            async with stdio_client(params, native_bytes=True) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = {tool.name for tool in (await session.list_tools()).tools}
                    native = await call_tool_native(session, "read_media_file", {"path": str(media / "big.png")})
                    plain = await session.call_tool("read_media_file", {"path": str(media / "big.png")})
                    return tools, native, plain

    tools, native, plain = anyio.run(run)
    assert "read_media_file" in tools and "list_directory" in tools
    assert native.content[0].data == pattern(MIB5)  # bytes, as they came off the wire
    assert __import__("base64").b64decode(plain.content[0].data) == pattern(MIB5)  # base64 for the SDK's models
    down = recorded(prefix + ".out")
    assert down[0][0] == "line" and down[0][1]["result"]["_meta"]["mcp-msgpack/wire"]["accept"] == "msgpack-v1"
    assert down[0][1]["result"]["capabilities"]["extensions"]["io.github.mcp-msgpack/native-bytes"] == {"version": 1}
    media_frames = [value for kind, value in down if kind == "frame" and has_bin(value)]
    assert len(media_frames) == 2 and media_frames[0]["result"]["content"][0]["data"] == pattern(MIB5)
    # No base64 of the image anywhere on the wire: the whole stream is well under 3 copies' worth of base64.
    assert Path(prefix + ".out").stat().st_size < 2.2 * MIB5


@pytest.mark.parametrize("api", ["Client", "ClientSession.discover"])
@pytest.mark.parametrize("wire", ["auto", "msgpack"])
def test_the_sdk_client_gets_bin_per_request_on_2026_07_28_from_the_ts_media_server(tmp_path, wire, api):
    """Issue 39 item 2: `mcp.Client` over our stdio speaks 2026-07-28 (server/discover, no initialize), as does
    a `ClientSession` that calls `discover()`; each request offers native bytes in its own `_meta` on
    msgpack-v1 (SPEC 8.1 rule 4) and its answer comes as bin (rule 5), given to the SDK as base64."""
    client_class = getattr(__import__("mcp"), "Client", None)
    if client_class is None or not hasattr(ClientSession, "discover"):
        pytest.skip("this SDK line has no 2026-07-28 client (mcp.Client, ClientSession.discover)")
    _built()
    media = tmp_path / "media"
    media.mkdir()
    (media / "big.png").write_bytes(pattern(MIB5))
    prefix = str(tmp_path / "wire")
    params = StdioServerParameters(command=PYTHON, args=[TAP, prefix, "--", NODE, TS_MEDIA_SERVER, str(media)])

    async def run():
        with anyio.fail_after(90):
            arguments = {"path": str(media / "big.png")}
            if api == "Client":
                async with client_class(stdio_client(params, native_bytes=True, wire=wire)) as client:
                    return await client.call_tool("read_media_file", arguments)
            async with stdio_client(params, native_bytes=True, wire=wire) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.discover()
                    return await session.call_tool("read_media_file", arguments)

    result = anyio.run(run)
    assert __import__("base64").b64decode(result.content[0].data) == pattern(MIB5)
    up = recorded(prefix + ".in")
    calls = [value for kind, value in up if kind == "frame" and value.get("method") == "tools/call"]
    assert len(calls) == 1
    capabilities = calls[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert capabilities["extensions"]["io.github.mcp-msgpack/native-bytes"] == {"version": 1}
    assert not [value for kind, value in up if kind == "line" and "io.github.mcp-msgpack/native-bytes" in str(value)]
    down = recorded(prefix + ".out")
    media_frames = [value for kind, value in down if kind == "frame" and has_bin(value)]
    assert len(media_frames) == 1 and media_frames[0]["id"] == calls[0]["id"]
    assert media_frames[0]["result"]["content"][0]["data"] == pattern(MIB5)
    assert Path(prefix + ".out").stat().st_size < 1.1 * MIB5  # no base64 of the image on the wire (1.335x)
    # The TS server advertised native bytes in a server/discover answer read as a frame (SPEC 8.1 rules 6-7),
    # so our requests may carry bin: on 'auto' the answer to our own discover, sent after the switch.
    discovered = [value for kind, value in down if kind == "frame" and "supportedVersions" in value.get("result", {})]
    assert [d["result"]["capabilities"]["extensions"]["io.github.mcp-msgpack/native-bytes"] for d in discovered] == [{"version": 1}]


@pytest.mark.parametrize("wire", ["auto", "msgpack"])
def test_ts_client_calls_a_python_mcpserver_on_our_stdio_server_with_native_bytes(tmp_path, wire):
    _built()
    prefix = str(tmp_path / "wire")
    out = ts_client(
        {"command": PYTHON, "args": [TAP, prefix, "--", PYTHON, MEDIA_SERVER], "wire": wire, "nativeBytes": True, "tool": "image", "arguments": {"size": MIB5}, "native": True}
    )
    assert out["server"] == "py-media" and out["tools"] == TOOL_NAMES
    assert out["wire"] == "msgpack"
    assert out["content"] == [{"type": "image", "kind": "bytes", "length": MIB5, "sha256": hashlib.sha256(pattern(MIB5)).hexdigest()}]
    down = recorded(prefix + ".out")
    frames = [value for kind, value in down if kind == "frame" and has_bin(value)]
    assert len(frames) == 1 and frames[0]["result"]["content"][0]["data"] == pattern(MIB5)


def test_the_ts_sdk_stdio_client_gets_json_from_our_python_server(tmp_path):
    _built()
    prefix = str(tmp_path / "wire")
    out = ts_client({"command": PYTHON, "args": [TAP, prefix, "--", PYTHON, MEDIA_SERVER], "transport": "sdk", "tool": "image", "arguments": {"size": 4000}})
    assert out["content"] == [{"type": "image", "kind": "base64", "length": 4000, "sha256": hashlib.sha256(pattern(4000)).hexdigest()}]
    assert {kind for kind, _ in recorded(prefix + ".out")} == {"line"}


def _repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = shutil.which("git")
    assert git, "git is needed for mcp-server-git"
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com", "PATH": "/usr/bin:/bin"}
    subprocess.run([git, "init", "-q", str(repo)], check=True, env=env)
    (repo / "hello.txt").write_text("hello\n")
    subprocess.run([git, "-C", str(repo), "add", "hello.txt"], check=True, env=env)
    subprocess.run([git, "-C", str(repo), "commit", "-q", "-m", "first commit over msgpack"], check=True, env=env)
    return repo


@pytest.mark.parametrize("wire", ["msgpack", "auto"])
def test_mcp_server_git_through_mcp_msgpack_run_answers_our_ts_client_on_msgpack(tmp_path, wire):
    _built()
    from mcp_msgpack.shared.sdk_compat import SDK_VERSION

    if SDK_VERSION.startswith(("2.0.", "2.1.", "2.2.")):
        # Its releases either require mcp 1.29-1.x or 2.3+; 2026.7.10 allows 2.0 but uses 1.x's decorators.
        pytest.skip(f"no mcp-server-git release runs on mcp {SDK_VERSION} (tests/test_run.py covers MCPServer there)")
    assert Path(GIT_SERVER).exists(), "mcp-server-git (pinned in requirements-test.txt) is not installed"
    repo = _repository(tmp_path)
    prefix = str(tmp_path / "wire")
    out = ts_client({"command": PYTHON, "args": [TAP, prefix, "--", RUN, "--", "mcp-server-git", "--repository", str(repo)], "wire": wire, "tool": "git_log", "arguments": {"repo_path": str(repo)}})
    assert out["wire"] == "msgpack"
    assert "git_log" in out["tools"] and "git_status" in out["tools"]
    assert "first commit over msgpack" in out["content"][0]["text"]
    down, up = recorded(prefix + ".out"), recorded(prefix + ".in")
    if wire == "msgpack":
        assert {kind for kind, _ in down} == {"frame"} and {kind for kind, _ in up} == {"frame"}
    else:
        # Upgraded to a mixed stream; each side then picks per message (our server: lines, cheaper in Python).
        assert down[0][1]["result"]["_meta"]["mcp-msgpack/wire"] == {"accept": "msgpack-v1", "mixed": True}
