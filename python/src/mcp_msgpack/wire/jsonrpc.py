"""SPEC 4.2: whether a decoded value is one JSON-RPC 2.0 message of MCP's (or, on HTTP, a batch of them)."""

from __future__ import annotations

from typing import Any

from .errors import WireError
from .numbers import MAX_SAFE_INTEGER, as_integer


def _is_id(value: object) -> bool:
    return type(value) is str or (type(value) is int and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)


def _integral_numbers(message: dict[str, Any]) -> None:
    """The members 4.2 requires to be integers, taken as integers when written as integral floats (3.4)."""
    if type(message.get("id")) is float:
        message["id"] = as_integer(message["id"])
    error = message.get("error")
    if type(error) is dict and type(error.get("code")) is float:
        error["code"] = as_integer(error["code"])
    for holder in (message.get("params"), message.get("result")):
        meta = holder.get("_meta") if type(holder) is dict else None
        if type(meta) is dict and type(meta.get("progressToken")) is float:
            meta["progressToken"] = as_integer(meta["progressToken"])


def _shape_fault(message: object) -> str | None:
    """Why `message` is not one JSON-RPC 2.0 message of SPEC 4.2, or None."""
    if type(message) is not dict:
        return "not a map"
    _integral_numbers(message)
    if message.get("jsonrpc") != "2.0":
        return "jsonrpc is not the string 2.0"
    allowed: tuple[str, ...]
    if "method" in message:
        if type(message["method"]) is not str:
            return "method is not a string"
        if "id" in message and not _is_id(message["id"]):
            return "a request's id is neither a string nor an integer within +-(2^53-1)"
        if "params" in message:
            fault = _params_fault(message["params"])
            if fault:
                return fault
        allowed = ("jsonrpc", "id", "method", "params")
    elif "result" in message:
        if "error" in message:
            return "both result and error"
        if "id" not in message or not _is_id(message["id"]):
            return "a result's id is neither a string nor an integer within +-(2^53-1)"
        fault = _params_fault(message["result"], "result")
        if fault:
            return fault
        allowed = ("jsonrpc", "id", "result")
    elif "error" in message:
        if "id" in message and message["id"] is not None and not _is_id(message["id"]):
            return "an error's id is neither nil, a string nor an integer within +-(2^53-1)"
        error = message["error"]
        if type(error) is not dict:
            return "error is not a map"
        code = error.get("code")
        if type(code) is not int or not -MAX_SAFE_INTEGER <= code <= MAX_SAFE_INTEGER:
            return "error.code is not an integer"
        if type(error.get("message")) is not str:
            return "error.message is not a string"
        allowed = ("jsonrpc", "id", "error")
    else:
        return "neither method, result nor error"
    for key in message:
        if key not in allowed:
            return f"a top-level member {key!r}"
    return None


def _params_fault(params: object, name: str = "params") -> str | None:
    if type(params) is not dict:
        return f"{name} is not a map"
    meta = params.get("_meta")
    if meta is None and "_meta" not in params:
        return None
    if type(meta) is not dict:
        return f"{name}._meta is not a map"
    if "progressToken" in meta and not _is_id(meta["progressToken"]):
        return f"{name}._meta.progressToken is neither a string nor an integer"
    related = meta.get("io.modelcontextprotocol/related-task")
    if related is not None or "io.modelcontextprotocol/related-task" in meta:
        if type(related) is not dict or type(related.get("taskId")) is not str:
            return f"{name}._meta related-task is not a map with a string taskId"
    return None


def check_message(value: object, *, allow_batch: bool = False) -> object:
    """Raises WireError not-json-rpc (SPEC 4.2) unless `value` is one JSON-RPC message (or, with
    `allow_batch`, a non-empty array of them, as HTTP bodies may be). Returns `value`."""
    if allow_batch and type(value) is list:
        if not value:
            raise WireError("not-json-rpc", "4.2", "an empty batch")
        for item in value:
            check_message(item)
        return value
    fault = _shape_fault(value)
    if fault:
        error = WireError("not-json-rpc", "4.2", fault)
        if type(value) is dict and _is_id(value.get("id")):
            kind = "request" if "method" in value else ("response" if "result" in value or "error" in value else None)
            error.with_id(value["id"], kind)
        raise error
    return value
