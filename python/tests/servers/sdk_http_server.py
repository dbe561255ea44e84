"""highlevel_server.py's server on the SDK's own Streamable HTTP app (`server.streamable_http_app()`, JSON and
SSE; `mcp.server.fastmcp.FastMCP` on 1.x, `MCPServer` on 2.x), under uvicorn on 127.0.0.1:PORT/mcp: the stock
Python server a client on any SDK line meets.

    python sdk_http_server.py PORT
"""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn

sys.path.insert(0, str(Path(__file__).parent))
from highlevel_server import server  # noqa: E402

if __name__ == "__main__":
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
