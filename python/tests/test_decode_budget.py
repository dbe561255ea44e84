"""The shared decode allowance (server/decode_budget.py, issue 39 item 4): concurrent bodies draw on one
allowance for the process, a body that cannot get its share waits and then gets 503 `server-busy` (SPEC 9.4),
and the whole server process, measured from outside, costs a stated multiple of one body for 8 at once and
gives its memory back afterwards. Loopback only; bounded in count (a few POSTs) and time (each a timeout)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcp_msgpack.server.decode_budget import WORST_HEAP_PER_BYTE, DecodeBudget, body_charge
from mcp_msgpack.wire import ReceiveLimits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

MIB = 1024 * 1024


def test_a_body_is_charged_its_bytes_and_the_heap_its_decode_may_build():
    limits = ReceiveLimits()
    assert body_charge(4 * MIB, limits) == 4 * MIB + 12 * 4 * MIB  # the guard's bound, 12 N past 3 MiB
    assert body_charge(1000, limits) == 1000 + WORST_HEAP_PER_BYTE * 1000  # a small body: 96 a byte at most
    assert body_charge(100 * 1024, limits) == 100 * 1024 + 3 * MIB  # between: the 3 MiB base


def test_a_charge_that_does_not_fit_waits_for_one_given_back_or_is_refused():
    async def scenario() -> list[object]:
        budget = DecodeBudget(100, wait=0.2, trim=False)
        first = await budget.take(60)
        refused = await budget.take(60)  # 60 + 60 > 100, and nothing is given back within the wait
        results: list[object] = [first, refused]
        async with anyio.create_task_group() as group:

            async def waiter() -> None:
                budget.wait = 30
                results.append(await budget.take(60))

            group.start_soon(waiter)
            await anyio.sleep(0.05)
            assert first is not None
            budget.give_back(first)  # the waiter gets in
        results.append(budget.in_use)
        results.append(await budget.take(10**9))  # more than the whole: charged the whole, once free
        return results

    first, refused, admitted, in_use, whole = anyio.run(scenario)
    assert (first, refused, admitted, in_use) == (60, None, 60, 60)
    assert whole is None  # 60 still taken: the whole allowance cannot be had within the wait


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc to measure the process")
def test_eight_hostile_bodies_at_once_cost_a_stated_multiple_of_one_and_memory_is_given_back(tmp_path):
    from measure_rss import measure  # the bench's measure (python/bench/measure_rss.py)

    from http_peers import write_image

    image, _ = write_image(tmp_path)
    row = measure("map1", 4 * MIB, image, copies=8)
    report = str(row)
    # One 4 MiB body of one-entry maps at the edge of what the receiver accepts: within 16x in the process.
    assert row["one"] <= 16, report
    # Eight at once: the allowance admits bodies worth two of the largest (4 MiB) at once, so eight cost at most
    # two largest bodies' 16x, 128 MiB, whatever their number (measured 1.94 times one, 99 MiB; without the
    # allowance 5.15 times one, 262 MiB: python/README.md).
    grown_at_once = row["many"] * row["one"] * 4 * MIB  # type: ignore[operator]
    assert grown_at_once <= 2 * 16 * 4 * MIB, report
    # Each decoded and answered (400: no session), or, on a machine slow enough that its share did not come
    # within the wait, refused with 503 (SPEC 9.4); the first ones admitted are always decoded.
    assert set(row["statuses"]) <= {400, 503} and row["statuses"].count(400) >= 2, report  # type: ignore[union-attr]
    # Given back: 2 s after, the process holds at most 4 times one body over its idle RSS.
    assert row["many_left"] <= 4, report
