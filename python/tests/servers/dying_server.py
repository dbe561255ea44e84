"""A msgpack-v1 server that accepts the upgrade, answers initialize, then dies in the middle of a frame."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))
from mcp_msgpack.wire import FrameReader, decode_payload, encode_frame  # noqa: E402

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
request = json.loads(stdin.readline())
result = {
    "protocolVersion": request["params"]["protocolVersion"],
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "dying", "version": "1"},
    "_meta": {"mcp-msgpack/wire": {"accept": "msgpack-v1"}},
}
stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n")
stdout.flush()
reader = FrameReader()
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    for payload in reader.feed(chunk):
        message = decode_payload(payload)
        if message.get("method") == "tools/list":
            frame = encode_frame({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})
            stdout.write(frame[: len(frame) // 2])  # half a frame, then the process is gone
            stdout.flush()
            os._exit(0)
