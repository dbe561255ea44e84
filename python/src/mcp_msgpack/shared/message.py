"""JSON-RPC messages between the SDK's models and the plain values msgpack-v1 encodes.

No JSON text on this path: the SDK's models are dumped to Python values (`mode="json"` only makes URLs and
the like plain strings, as the SDK's JSON dump would write them) and validated back from Python values.
"""

from __future__ import annotations

from typing import Any

from mcp.shared.message import SessionMessage

from .sdk_compat import message_model, session_message, types, validate_message


def from_session_message(message: SessionMessage | types.JSONRPCMessage) -> dict[str, Any]:
    """The message as plain values, with the fields the SDK's JSON transports write (by alias, unset fields
    left out, as `model_dump_json(by_alias=True, exclude_unset=True)` does), `jsonrpc` and `id` first
    (SPEC 3.2.6, so a receiver that refuses it can still answer or fail its id)."""
    model = message_model(message.message if isinstance(message, SessionMessage) else message)
    value = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if "params" in value and value["params"] is None:
        del value["params"]  # JSON-RPC has no null params; SPEC 4.2 refuses it
    if "id" in value and list(value)[:2] != ["jsonrpc", "id"]:
        ordered = {"jsonrpc": value.pop("jsonrpc"), "id": value.pop("id")}
        ordered.update(value)
        return ordered
    return value  # type: ignore[no-any-return]  # model_dump is typed Any


def to_session_message(value: object) -> SessionMessage:
    """A decoded message (plain values) as the SDK's SessionMessage; raises pydantic's ValidationError."""
    return session_message(validate_message(value))
