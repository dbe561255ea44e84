"""The media fields of SPEC 8.2: where in a message a bin may stand in place of base64 (native bytes)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def _blocks(content: object) -> Iterator[dict[str, Any]]:
    """Content blocks of a `content` member (one block or a list), with a tool_result's blocks one level in."""
    items = content if isinstance(content, list) else [content]
    for block in items:
        if isinstance(block, dict):
            yield block
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                yield from (inner for inner in block["content"] if isinstance(inner, dict))


def _media_slots(block: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    kind = block.get("type")
    if kind in ("image", "audio"):
        yield block, "data"
    elif kind == "resource" and isinstance(block.get("resource"), dict):
        yield block["resource"], "blob"


def _messages_content(messages: object) -> Iterator[dict[str, Any]]:
    if isinstance(messages, list):
        for entry in messages:
            if isinstance(entry, dict):
                yield from _blocks(entry.get("content"))


def media_slots(message: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    """Every (holder, key) of SPEC 8.2 in a message: where bin may stand in place of base64."""
    result = message.get("result")
    if isinstance(result, dict):
        if "content" in result:
            for block in _blocks(result["content"]):
                yield from _media_slots(block)
        for block in _messages_content(result.get("messages")):
            yield from _media_slots(block)
        contents = result.get("contents")
        if isinstance(contents, list):
            for entry in contents:
                if isinstance(entry, dict):
                    yield entry, "blob"
        requests = result.get("inputRequests")
        if isinstance(requests, (dict, list)):
            for entry in requests.values() if isinstance(requests, dict) else requests:
                if isinstance(entry, dict) and entry.get("method") == "sampling/createMessage":
                    params = entry.get("params")
                    if isinstance(params, dict):
                        for block in _messages_content(params.get("messages")):
                            yield from _media_slots(block)
    params = message.get("params")
    if isinstance(params, dict):
        if message.get("method") == "sampling/createMessage":
            for block in _messages_content(params.get("messages")):
                yield from _media_slots(block)
        responses = params.get("inputResponses")
        if isinstance(responses, (dict, list)):
            for entry in responses.values() if isinstance(responses, dict) else responses:
                if isinstance(entry, dict) and "content" in entry:
                    for block in _blocks(entry["content"]):
                        yield from _media_slots(block)
