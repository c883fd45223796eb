"""The progress display's ETA: weighted by graph size, unknown before the first case ends, a
lower bound once the running case overruns its share (issue 15: no "ETA 0:00:05" while a
graph generates for minutes)."""

from __future__ import annotations

from gcbench.bench.progress import Display, Eta


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_no_estimate_before_a_case_ends():
    clock = Clock()
    eta = Eta(10.0, clock)
    eta.begin(1.0)
    clock.now += 30
    assert eta.left() == (None, False) and eta.text() == "ETA ?"


def test_the_rate_is_per_weight_so_a_large_graph_counts_for_more():
    clock = Clock()
    eta = Eta(1 + 1 + 100, clock)  # two small cases, then one of a graph 100 times larger
    for _ in range(2):
        eta.begin(1.0)
        clock.now += 2
        eta.finish(1.0)
    eta.begin(100.0)
    assert eta.left() == (200.0, False)  # 2 s per unit of weight
    clock.now += 50
    assert eta.left() == (150.0, False) and eta.text() == "ETA 0:02:30"


def test_an_overrunning_case_makes_the_estimate_a_lower_bound():
    clock = Clock()
    eta = Eta(4.0, clock)
    eta.begin(1.0)
    clock.now += 5
    eta.finish(1.0)
    eta.begin(1.0)  # expected 5 s; it takes minutes (a graph being generated)
    clock.now += 120
    assert eta.left() == (10.0, True) and eta.text() == "ETA > 0:00:10"
    eta2 = Eta(2.0, clock)
    eta2.finish(1.0)
    eta2.begin(1.0)
    clock.now += 1000
    assert eta2.text() == "ETA ?"  # the last case overran: nothing known about the rest


def test_resumed_cases_count_as_done_but_not_in_the_rate():
    clock = Clock()
    eta = Eta(10.0, clock)
    eta.skip(8.0)
    eta.begin(1.0)
    clock.now += 3
    eta.finish(1.0)
    eta.begin(1.0)
    assert eta.left() == (3.0, False)
    eta.finish(1.0)
    assert eta.left() == (0.0, False)


def test_the_display_shows_phases_and_returns_to_the_case():
    display = Display(3, weight=30.0, enabled=False)
    display.current("running greedy on g", 10.0)
    display.phase("generating g")
    assert display.phase_text == "generating g"
    display.phase(None)
    assert display.phase_text == "running greedy on g"
    display.advance(1, 10.0)
    display.skip(1, 10.0)
    assert display.eta.ran == 10.0 and display.eta.skipped == 10.0
