"""A Python MCPServer that replays recorded tool results (packages/bench/corpus/*.jsonl, real MCP sessions with the
official filesystem server and server-everything), on this package's Streamable HTTP app: what
measure_coding.py calls. argv: PORT COMPRESSION (true|false|auto) [FAVOR (bytes|cpu), with true]."""

import json
import sys
from pathlib import Path

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from mcp_msgpack import streamable_http_app
from mcp_msgpack.server.content_coding import CompressionPolicy

CORPUS = Path(__file__).resolve().parents[2] / "packages" / "bench" / "corpus"
CORPORA = {"fs-session": "filesystem-session.jsonl", "everything-session": "everything-session.jsonl"}


def recorded_results(corpus: str) -> list[dict]:
    """The recorded session's tools/call results, in order (as the TS bench's corpora.ts reads them)."""
    pairs = [json.loads(line) for line in (CORPUS / CORPORA[corpus]).read_text().splitlines() if line]
    return [p["reply"]["result"] for p in pairs if p["request"]["method"] == "tools/call" and "result" in p["reply"]]


RESULTS = {name: recorded_results(name) for name in CORPORA}
server = MCPServer("replay")


@server.tool()
def replay(corpus: str, index: int) -> CallToolResult:
    """The recorded result `index` of `corpus`, as the recorded server sent it."""
    return CallToolResult.model_validate(RESULTS[corpus][index])


if __name__ == "__main__":
    port, compression = int(sys.argv[1]), sys.argv[2]
    option = {"true": True, "false": False}.get(compression, compression)
    if len(sys.argv) > 3:  # CompressionPolicy's favor (README, "Compression"), replies coded as with true
        option = CompressionPolicy(replies=option, favor=sys.argv[3])
    uvicorn.run(streamable_http_app(server, compression=option), host="127.0.0.1", port=port, log_level="warning")
