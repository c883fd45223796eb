"""The round loops of gcbench.algorithms.rounds on a simulated device: rounds counted, none
skipped, the blocking reads counted, the cap still raised, under every host protocol."""

from __future__ import annotations

import math

import pytest

from gcbench.algorithms.rounds import FIRST_LEAD, SYNCS, drive, run_rounds
from gcbench.errors import RoundCapError


class FakeDevice:
    """Rounds that leave ``counts[r]`` (0 from the first 0 on: a round launched after the end
    does nothing), run by a device that finishes ``speed`` rounds per host call (the host is
    ahead when speed < 1). A round's count lands on the host once the next round has run."""

    def __init__(self, counts: list[int], speed: float = math.inf) -> None:
        self.counts, self.speed = counts, speed
        self.launched: list[int] = []
        self.finished = 0.0  # rounds the device has run
        self.syncs = 0

    def left(self, rnd: int) -> int:
        if 0 in self.counts[:rnd]:
            return 0
        return self.counts[rnd] if rnd < len(self.counts) else self.counts[-1]

    def _tick(self) -> None:
        self.finished = min(len(self.launched), self.finished + self.speed)

    def launch(self, rnd: int) -> None:
        assert rnd == len(self.launched), "rounds are launched in order, none skipped"
        self.launched.append(rnd)
        self._tick()

    def landed(self, rnd: int) -> int | None:
        self._tick()
        return self.left(rnd) if self.finished >= rnd + 2 else None

    def wait(self, rnd: int) -> None:
        assert rnd + 1 < len(self.launched), "waits only for a round whose next is launched"
        self.syncs += 1
        self.finished = max(self.finished, rnd + 2)

    def read(self, first: int, last: int) -> list[int]:
        assert last <= len(self.launched)
        self.syncs += 1
        self.finished = len(self.launched)
        return [self.left(r) for r in range(first, last)]


def ending_after(k: int) -> list[int]:
    """Counts of a coloring that needs k rounds: decreasing, 0 after round k - 1."""
    return [k - r for r in range(1, k + 1)]


SPEEDS = {"host-bound": math.inf, "balanced": 1.0, "device-bound": 0.2, "device 20x": 0.05}


@pytest.mark.parametrize("sync", SYNCS)
@pytest.mark.parametrize("speed", SPEEDS.values(), ids=SPEEDS.keys())
@pytest.mark.parametrize("k", [1, 2, 3, 5, 30, 31, 100, 1000])
def test_drive_counts_every_round_and_stops_at_the_first_zero(sync, speed, k):
    device = FakeDevice(ending_after(k), speed)
    rounds, trace = drive(device, cap=10 * k + 10, algorithm="t", sync=sync)
    assert rounds == k
    assert trace == [float(c) for c in ending_after(k)]
    assert device.launched == list(range(len(device.launched)))
    # past the end: none with round, at most the last batch with batch, with device at most
    # the lead, which a device slower than the host lets grow to about twice the rounds
    past = len(device.launched) - k
    assert past <= {"round": 0, "batch": k, "device": 2 * k + FIRST_LEAD}[sync], past


@pytest.mark.parametrize("speed", SPEEDS.values(), ids=SPEEDS.keys())
@pytest.mark.parametrize("k", [1, 2, 3, 7, 30, 100, 1000, 5000])
@pytest.mark.parametrize("spare", [1, 10], ids=["cap k+1", "cap 10k"])
def test_blocking_reads_per_protocol(speed, k, spare):
    syncs = {}
    for sync in SYNCS:
        device = FakeDevice(ending_after(k), speed)
        drive(device, cap=spare * k + 1, algorithm="t", sync=sync)
        syncs[sync] = device.syncs
    assert syncs["round"] == k
    assert syncs["batch"] == math.ceil(math.log2(k + 1))
    assert syncs["device"] <= math.ceil(math.log2(k)) + 2


def test_device_protocol_never_waits_when_the_device_keeps_up():
    device = FakeDevice(ending_after(500), math.inf)
    drive(device, cap=1000, algorithm="t")
    assert device.syncs == 0
    assert len(device.launched) <= 502  # one round past the end lands the last count


@pytest.mark.parametrize("sync", SYNCS)
@pytest.mark.parametrize("speed", SPEEDS.values(), ids=SPEEDS.keys())
def test_drive_raises_at_the_cap_with_the_colors(sync, speed):
    marker = object()
    device = FakeDevice([7], speed)  # never finishes
    with pytest.raises(RoundCapError) as err:
        drive(device, cap=37, algorithm="t", colors=marker, sync=sync)
    assert err.value.coloring is marker
    assert "after 37 rounds" in str(err.value)
    assert device.launched == list(range(37))


def test_drive_refuses_an_unknown_protocol():
    with pytest.raises(ValueError, match="sync=sometimes"):
        drive(FakeDevice([0]), cap=3, algorithm="t", sync="sometimes")


def test_run_rounds_counts_rounds_and_stops_at_the_cap():
    left = iter([5, 3, 0])
    assert run_rounds(lambda r: next(left), cap=10, algorithm="t") == (3, [5.0, 3.0, 0.0])
    marker = object()
    with pytest.raises(RoundCapError) as err:
        run_rounds(lambda r: 7, cap=4, algorithm="t", colors=marker)
    assert err.value.coloring is marker
