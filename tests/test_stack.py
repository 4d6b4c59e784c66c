"""`sim.stack`: calls made inside the roomy stack do not map and unmap a frame chunk each
time their depth crosses one (CPython 3.11 does, with a page fault each)."""

from __future__ import annotations

import resource

from sim.stack import in_a_roomy_stack

DEPTH = 400  # frames of about 100 bytes: past a 16 kB chunk, inside the roomy 1 MiB one
DIVES = 5_000


def _dive(n: int) -> int:
    return 0 if n == 0 else 1 + _dive(n - 1)


def _dives() -> int:
    """Page faults of DIVES recursions DEPTH deep, from this frame."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(DIVES):
        assert _dive(DEPTH) == DEPTH
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_a_roomy_stack_opens_no_chunk_per_dive():
    plain = _dives()
    roomy = in_a_roomy_stack(_dives)
    assert roomy < DIVES // 10, (plain, roomy)
    if plain >= DIVES:  # this Python maps a chunk per dive (3.11): the roomy stack does not
        assert roomy < plain // 10


def test_the_roomy_call_returns_what_fn_returns():
    assert in_a_roomy_stack(lambda: "done") == "done"
