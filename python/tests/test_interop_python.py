"""Our Python client and server over real stdio, with the bytes on the wire checked (SPEC 7, 8)."""

from __future__ import annotations

import hashlib
import sys

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client
from wiretap import MEDIA_SERVER, PYTHON, TAP, has_bin, recorded

sys.path.insert(0, str(__import__("pathlib").Path(MEDIA_SERVER).parent))
from media_server import TOOL_NAMES, pattern  # noqa: E402

from mcp_msgpack import call_tool_native, stdio_client  # noqa: E402


def tapped(tmp_path, *server_args: str) -> tuple[StdioServerParameters, str]:
    prefix = str(tmp_path / "wire")
    return StdioServerParameters(command=PYTHON, args=[TAP, prefix, "--", PYTHON, MEDIA_SERVER, *server_args]), prefix


async def session_calls(transport, native: bool, size: int = 300_000) -> dict:
    async with transport as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(tool.name for tool in (await session.list_tools()).tools)
            echo = (await session.call_tool("echo", {"text": "héllo ✓ 😀"})).content[0].text
            as_bytes = (await call_tool_native(session, "image", {"size": size})).content[0].data
            as_base64 = (await session.call_tool("image", {"size": 1000})).content[0].data
            result = await session.call_tool("records", {"count": 300})
            field = "structured_content" if "structured_content" in type(result).model_fields else "structuredContent"  # 2.x, 1.x
            structured = getattr(result, field)
            records = structured or __import__("json").loads(result.content[0].text)
            return {"tools": tools, "echo": echo, "bytes": as_bytes, "base64": as_base64, "records": records}


def check_calls(out: dict, size: int = 300_000) -> None:
    assert out["tools"] == TOOL_NAMES
    assert out["echo"] == "héllo ✓ 😀"
    assert out["bytes"] == pattern(size)
    assert isinstance(out["base64"], str) and __import__("base64").b64decode(out["base64"]) == pattern(1000)
    assert len(out["records"]["entries"]) == 300


@pytest.mark.parametrize(
    "wire,native,encoding",
    [("auto", True, "smallest"), ("auto", False, "smallest"), ("auto", True, "cheapest-cpu"), ("msgpack", True, "cheapest-cpu"), ("msgpack", False, "cheapest-cpu")],
)
def test_our_client_and_server_speak_msgpack(tmp_path, wire, native, encoding):
    params, prefix = tapped(tmp_path)
    check_calls(anyio.run(session_calls, stdio_client(params, wire=wire, native_bytes=native, encoding=encoding), native))
    up, down = recorded(prefix + ".in"), recorded(prefix + ".out")
    kinds_up = [kind for kind, _ in up]
    if wire == "auto":
        # JSON first: the initialize line with the offer, then msgpack-v1 on a mixed stream (7.1, 7.4).
        assert kinds_up[0] == "line" and up[0][1]["params"]["_meta"]["mcp-msgpack/wire"] == {"offer": ["msgpack-v1"], "mixed": True}
        assert down[0][0] == "line" and down[0][1]["result"]["_meta"]["mcp-msgpack/wire"] == {"accept": "msgpack-v1", "mixed": True}
        # The client's policy: frames for every message on 'smallest'; on 'cheapest-cpu' lines (no media to send).
        assert set(kinds_up[1:]) == ({"frame"} if encoding == "smallest" else {"line"})
    else:
        assert set(kinds_up) == {"frame"}
    media = [value for kind, value in down if kind == "frame" and has_bin(value)]
    if native:
        # Both images travelled as bin (the one the SDK got as base64 too): no base64 on the wire.
        assert len(media) == 2
        assert media[0]["result"]["content"][0]["data"] == pattern(300_000)
    else:
        assert media == []


def test_our_client_against_a_json_only_server_stays_json_and_does_not_hang(tmp_path):
    params, prefix = tapped(tmp_path, "--sdk")

    async def run():
        with anyio.fail_after(60):
            return await session_calls(stdio_client(params, native_bytes=True), True)

    check_calls(anyio.run(run))
    assert {kind for kind, _ in recorded(prefix + ".in")} == {"line"}
    assert {kind for kind, _ in recorded(prefix + ".out")} == {"line"}
    # The offer rode on every request until a result settled it: the initialize only.
    offers = [v for _, v in recorded(prefix + ".in") if "mcp-msgpack/wire" in ((v.get("params") or {}).get("_meta") or {})]
    assert [v["method"] for v in offers] == ["initialize"]


def test_the_sdk_stdio_client_gets_plain_json_from_our_server(tmp_path):
    params, prefix = tapped(tmp_path)
    check_calls(anyio.run(session_calls, sdk_stdio_client(params), False))
    assert {kind for kind, _ in recorded(prefix + ".out")} == {"line"}


def test_wire_json_never_offers(tmp_path):
    params, prefix = tapped(tmp_path)
    check_calls(anyio.run(session_calls, stdio_client(params, wire="json", native_bytes=True), True))
    ins = recorded(prefix + ".in")
    assert {kind for kind, _ in ins} == {"line"}
    assert all("_meta" not in (v.get("params") or {}) or "mcp-msgpack/wire" not in v["params"]["_meta"] for _, v in ins)


def test_a_server_forced_to_json_declines_the_upgrade(tmp_path):
    params, prefix = tapped(tmp_path, "--wire", "json")
    check_calls(anyio.run(session_calls, stdio_client(params, native_bytes=True), True))
    assert {kind for kind, _ in recorded(prefix + ".out")} == {"line"}


def test_digest_of_media_sent_by_the_client(tmp_path):
    params, _ = tapped(tmp_path)

    async def run():
        async with stdio_client(params, native_bytes=True) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                data = __import__("base64").b64encode(pattern(5000)).decode()
                return (await session.call_tool("digest", {"data": data})).content[0].text

    assert anyio.run(run) == hashlib.sha256(pattern(5000)).hexdigest()


@pytest.mark.parametrize(
    "wire,native,sdk,sdk_server",
    [("auto", True, False, False), ("msgpack", False, False, False), ("json", False, False, False), ("auto", False, True, False), ("auto", True, False, True), ("auto", False, True, True)],
)
def test_a_tool_returning_native_image_reaches_every_client(tmp_path, wire, native, sdk, sdk_server):
    """native_image: bin to a native-bytes client, base64 to any other, the SDK's client included, and the
    SDK's own stdio transport too (a server that mixes it in: nothing of ours resolves anything there)."""
    params, prefix = tapped(tmp_path, *(["--sdk"] if sdk_server else []))
    native = native and not sdk_server
    transport = sdk_stdio_client(params) if sdk else stdio_client(params, wire=wire, native_bytes=native)

    async def run():
        async with transport as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                plain = (await session.call_tool("image_bytes", {"size": 70_000})).content[0].data
                as_bytes = (await call_tool_native(session, "image_bytes", {"size": 70_000})).content[0].data
                return plain, as_bytes

    plain, as_bytes = anyio.run(run)
    assert __import__("base64").b64decode(plain) == pattern(70_000) and as_bytes == pattern(70_000)
    bins = [value for kind, value in recorded(prefix + ".out") if kind == "frame" and has_bin(value)]
    assert len(bins) == (2 if native else 0)
