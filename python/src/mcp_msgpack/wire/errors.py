"""The errors a msgpack-v1 receiver reports (SPEC 5.1 framing errors, 5.2 payload errors)."""

from __future__ import annotations

# Payload error codes (SPEC 5.2) and the framing error codes (SPEC 5.1).
PAYLOAD_CODES = (
    "empty-payload",
    "malformed-msgpack",
    "forbidden-type",
    "non-string-key",
    "forbidden-key",
    "too-deep",
    "over-budget",
    "non-finite-number",
    "not-json-rpc",
    "malformed-json",
)
FRAMING_CODES = ("frame-too-large", "truncated-frame", "line-too-long")

_NO_ID = object()


class WireError(Exception):
    """A refused payload or a broken stream.

    `code` is the SPEC 5.1/5.2 code, `rule` the SPEC rule broken (`"4.1.1"` .. `"4.1.10"`, `"4.2"`, `"8.3"`,
    `"2"` for framing). For payload errors, `request_id` is the top-level id read whole before the fault
    (`has_id` says whether there was one) and `kind` is `"request"`, `"response"` or `None`, so a receiver
    can answer or fail that id (SPEC 5.2).
    """

    def __init__(self, code: str, rule: str, message: str, *, request_id: object = _NO_ID, kind: str | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.rule = rule
        self.detail = message
        self._id = request_id
        self.kind = kind

    @property
    def framing(self) -> bool:
        """True for errors that close the connection (SPEC 5.1)."""
        return self.code in FRAMING_CODES

    @property
    def has_id(self) -> bool:
        return self._id is not _NO_ID

    @property
    def request_id(self) -> object:
        return None if self._id is _NO_ID else self._id

    def with_id(self, request_id: object, kind: str | None) -> WireError:
        self._id = request_id
        self.kind = kind
        return self

    @property
    def jsonrpc_code(self) -> int:
        """-32700 when the payload could not be decoded, -32600 when it decoded but is no message (SPEC 5.2)."""
        return -32600 if self.code == "not-json-rpc" else -32700
