"""One decode allowance for the whole process (issue 39 item 4): POST bodies being read, decoded and handled at
once draw their worst-case cost from it, so that concurrent hostile bodies cost a stated multiple of one, not
one each; and once a large body is done, the C heap it left free is handed back to the system.

A body's charge is what it may cost while its request is served: its bytes, and the most the guard lets its
decode build (`ReceiveLimits.heap_bound`, or `WORST_HEAP_PER_BYTE` a byte for a small body, whichever is
less). It is taken from `Content-Length` before any byte is read (the body limit's size when there is none),
and held until the request's reply is done: the decoded message lives that long. A body whose charge does not
fit waits, up to `wait` seconds, for others to finish; then it is refused with 503, `Retry-After` (SPEC 9.4).
A charge is never more than the whole allowance, so a body alone is always admitted.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from http import HTTPStatus

import anyio
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from ..wire import ReceiveLimits
from .replies import accept_of, error_response, with_vary

# The most the guard's CPython heap estimate grows a payload byte: a map of one key `""` holding a map
# (`81 a0` nested), 184 bytes for 2. So a small body cannot build more than 96 times its size.
WORST_HEAP_PER_BYTE = 96
# Bodies at once, at the largest body, that the default allowance admits together.
DEFAULT_LARGEST_AT_ONCE = 2
# How long a body waits for its share before it is refused (seconds).
DEFAULT_WAIT = 30.0
# Charges at least this large hand the C heap back when the last request in flight is done.
TRIM_AFTER = 1024 * 1024
SERVER_BUSY = -32000


def body_charge(size: int, limits: ReceiveLimits) -> int:
    """The most a POST of `size` bytes may cost the process while it is decoded and served."""
    return size + min(limits.heap_bound(size), WORST_HEAP_PER_BYTE * size)


def _malloc_trim() -> Callable[[], object] | None:
    """glibc's `malloc_trim(0)`: gives the free pages of the C heap back (CPython's freed lists and large
    objects stay in it otherwise). None elsewhere (musl, macOS, Windows)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


class DecodeBudget:
    """An allowance of bytes that requests in flight draw from and give back."""

    def __init__(self, total: int, wait: float = DEFAULT_WAIT, trim: bool = True) -> None:
        self.total = total
        self.wait = wait
        self.in_use = 0
        self._changed: anyio.Event | None = None
        self._trim = _malloc_trim() if trim else None
        self._large_done = False

    async def take(self, charge: int) -> int | None:
        """The charge taken (at most the whole allowance), or None when it did not fit within `wait`."""
        charge = min(charge, self.total)
        with anyio.move_on_after(self.wait):
            while self.in_use + charge > self.total:
                if self._changed is None:
                    self._changed = anyio.Event()
                await self._changed.wait()
            self.in_use += charge
            return charge
        return None

    def give_back(self, charge: int) -> None:
        self.in_use -= charge
        self._large_done = self._large_done or charge >= TRIM_AFTER
        if self.in_use == 0 and self._large_done and self._trim is not None:
            self._large_done = False
            self._trim()
        if self._changed is not None:
            self._changed.set()
            self._changed = None


_process_budgets: dict[int, DecodeBudget] = {}


def process_budget(max_body_size: int, limits: ReceiveLimits) -> DecodeBudget:
    """The process's allowance: `DEFAULT_LARGEST_AT_ONCE` bodies of the largest size at once. One per largest
    charge, so apps in one process with the same body limit and budget share it."""
    total = DEFAULT_LARGEST_AT_ONCE * body_charge(max_body_size, limits)
    return _process_budgets.setdefault(total, DecodeBudget(total))


class DecodeAdmission:
    """ASGI middleware: a POST with a body is served once its charge is taken from `budget`, and gives it back
    when its reply is done."""

    def __init__(self, app: ASGIApp, budget: DecodeBudget, max_body_size: int, limits: ReceiveLimits) -> None:
        self.app = app
        self.budget = budget
        self.max_body_size = max_body_size
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        declared = headers.get("content-length")
        size = int(declared) if declared is not None and declared.isdigit() else self.max_body_size
        if headers.get("content-encoding"):
            size = self.max_body_size  # a coded body may decode to the body limit (SPEC 10.4), charged as such
        size = min(size, self.max_body_size)  # a larger one is refused (413) before it is read
        if size == 0:
            await self.app(scope, receive, send)
            return
        charge = await self.budget.take(body_charge(size, self.limits))
        if charge is None:
            retry = max(1, round(self.budget.wait))
            response = error_response(
                HTTPStatus.SERVICE_UNAVAILABLE, SERVER_BUSY, "Server busy: bodies being decoded hold its decode allowance",
                msgpack=accept_of(scope).prefers_msgpack, data={"reason": "server-busy"},
                headers={"retry-after": str(retry)},
            )
            await response(scope, receive, with_vary(send))
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.budget.give_back(charge)
