"""The conditions meter's floor (gcbench/bench/conditions.py): the harness's own resolution
for a case's time, which a held call that never waits for the device does not inherit from
the host's round trip."""

from __future__ import annotations

import pytest

from gcbench.bench.conditions import EVENT_RESOLUTION_MS, TIMER_RESOLUTION_MS, Conditions


class MeasuredTrip:
    """A round trip the host measured: a fixed 40 µs (the meter only reads ``us()``)."""

    def us(self) -> float:
        return 40.0


def _visit(meter: Conditions, case: str, device_wait: bool, reps: int = 3) -> float:
    meter.begin_case(case)
    for _ in range(reps):
        meter.start()
        meter.stop(device_wait)
    return meter.floor_ms()


def test_a_case_that_never_waited_has_the_events_resolution_as_its_floor():
    meter = Conditions("gpu", round_trip=MeasuredTrip())
    assert _visit(meter, "held", device_wait=False) == EVENT_RESOLUTION_MS


def test_a_case_that_waits_has_a_round_trip_in_its_floor_for_all_its_visits():
    meter = Conditions("gpu", round_trip=MeasuredTrip())
    assert _visit(meter, "reads", device_wait=True) == pytest.approx(0.040 + EVENT_RESOLUTION_MS)
    assert _visit(meter, "mixed", device_wait=False) == EVENT_RESOLUTION_MS
    assert _visit(meter, "mixed", device_wait=True, reps=1) == pytest.approx(
        0.040 + EVENT_RESOLUTION_MS
    )
    assert _visit(meter, "mixed", device_wait=False) == pytest.approx(0.040 + EVENT_RESOLUTION_MS)


def test_the_cpu_floor_is_the_timers_resolution():
    meter = Conditions("cpu")
    assert _visit(meter, "cpu", device_wait=True) == TIMER_RESOLUTION_MS


def test_a_gpu_case_that_waited_is_flagged_host_and_a_held_one_is_not():
    meter = Conditions("gpu", round_trip=MeasuredTrip())
    _visit(meter, "held", device_wait=False)
    assert not meter.waits_for_device()
    _visit(meter, "reads", device_wait=True)
    assert meter.waits_for_device()
    cpu = Conditions("cpu")
    _visit(cpu, "cpu", device_wait=True)
    assert not cpu.waits_for_device()  # a CPU call has no device to wait for
