"""Refit ``auto``'s rule (gcbench/algorithms/auto.py) from results CSVs, or evaluate it.

    PYTHONPATH=. python3 benchmarks/fit_auto.py RESULTS.csv... [--write]
    PYTHONPATH=. python3 benchmarks/fit_auto.py --evaluate RESULTS.csv...

Fit: for each backend in the CSVs, every configuration (algorithm, params, block size; peers
and ``auto`` rows left out) gets its median time and colors per graph. Thresholds are tried
from the geometric midpoints between the graphs' values (skew over all graphs; nnz over the
graphs that are not skewed, as the decision list asks), and for each kind of graph the
configuration with the best geometric mean, over that kind's graphs, of time / fastest
(``fast``) or colors / fewest, then reduction, then time (``fewest``). Only configurations
measured on every graph of the backend compete, so fit on one consistent set of runs. The
thresholds with the best overall mean of the first ratio win; ties go to more kinds of graph
told apart (skewed, large and small graphs are different regimes unless the data says
otherwise), then to the better worst graph, then to the widest gap between the graphs a
threshold separates. Kinds no graph falls into get the configuration best over all graphs.
Prints the rule as Python; ``--write`` puts it between the markers in auto.py.

Evaluate: for every graph with ``auto`` rows, auto's median time against the fastest other
configuration and its colors against the fewest, per objective, with the issue's targets
(fast: geometric mean <= 1.15x and every graph <= 2x; fewest: every graph <= 1.05x).
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gcbench import algorithms
from gcbench.algorithms import auto
from gcbench.algorithms.auto import KINDS, OBJECTIVES, Features, Pick, Rule
from gcbench.errors import SpecError
from gcbench.grammar import parse_param_string, requested_params

AUTO_PY = Path(auto.__file__)
BEGIN = "# --- fitted rule: written by benchmarks/fit_auto.py, do not edit by hand ---"
END = "# --- end of fitted rule ---"

Config = tuple[str, str, int | None]  # algorithm, canonical params, block size


@dataclass
class Table:
    """One backend's measurements: per graph its features, per (graph, config) the medians,
    and per graph the least time and the fewest colors of any config (what ratios divide by)."""

    features: dict[str, Features]
    time: dict[tuple[str, Config], float]
    colors: dict[tuple[str, Config], float]
    fastest: dict[str, float] = field(init=False)
    fewest: dict[str, float] = field(init=False)

    def __post_init__(self) -> None:
        self.fastest, self.fewest = {}, {}
        for (graph, config), ms in self.time.items():
            self.fastest[graph] = min(ms, self.fastest.get(graph, math.inf))
            self.fewest[graph] = min(self.colors[graph, config], self.fewest.get(graph, math.inf))

    def configs(self) -> list[Config]:
        return sorted({c for _, c in self.time}, key=str)

    def has(self, graphs: Iterable[str], config: Config) -> bool:
        return all((g, config) in self.time for g in graphs)

    def ratio(self, graph: str, config: Config, objective: str) -> tuple[float, float]:
        """(primary, secondary) ratio of ``config`` on ``graph`` to the best there."""
        time = self.time[graph, config] / self.fastest[graph]
        if objective == "fast":
            return time, time
        return self.colors[graph, config] / self.fewest[graph], time


def read_rows(paths: Iterable[str]) -> list[dict[str, str]]:
    rows = []
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            rows.extend(row for row in csv.DictReader(handle) if row.get("status") == "ok")
    return rows


def row_features(row: Mapping[str, str]) -> Features:
    """The rule's features from a row's graph columns (the same values auto computes)."""
    return Features(int(row["n"]), 2 * int(row["m"]), int(row["max_degree"]))


def tables(rows: Iterable[Mapping[str, str]]) -> dict[str, Table]:
    """Per backend, the medians of every gcbench configuration (peers and auto left out)."""
    times: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    colors: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    feats: dict[str, dict[str, Features]] = defaultdict(dict)
    for row in rows:
        backend, name = row["backend"], row["algorithm"]
        try:
            spec = algorithms.get(name, backend)
        except SpecError:
            continue  # an algorithm this checkout does not have
        if spec.peer or spec.chooser or spec.backend != backend:
            continue
        block = int(row["block_size"]) if row.get("block_size") else None
        config = (name, requested_params(row["params"]), block)
        key = (row["graph"], config)
        times[backend][key].append(float(row["time_ms"]))
        colors[backend][key].append(float(row["colors"]))
        feats[backend][row["graph"]] = row_features(row)
    return {
        b: Table(
            feats[b],
            {k: statistics.median(v) for k, v in times[b].items()},
            {k: statistics.median(v) for k, v in colors[b].items()},
        )
        for b in times
    }


def geomean(values: Iterable[float]) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 1.0


def midpoints(values: Iterable[float]) -> list[tuple[float, float]]:
    """Thresholds to try, each with its margin: the geometric midpoints between consecutive
    distinct values (margin: the log of the gap), and 0 and infinity (no split, margin 0)."""
    points = sorted(set(values))
    pairs = zip(points, points[1:], strict=False)
    between = [(math.sqrt(a * b), math.log(b / a)) for a, b in pairs if a > 0]
    return [(0.0, 0.0), *between, (math.inf, 0.0)]


def best(
    table: Table, graphs: list[str], configs: list[Config], objective: str
) -> tuple[Config, tuple[float, float]]:
    """The configuration with the best geometric-mean ratios over ``graphs``."""
    scored = []
    for config in configs:
        ratios = [table.ratio(g, config, objective) for g in graphs]
        score = (geomean(r[0] for r in ratios), geomean(r[1] for r in ratios))
        rank = score if objective == "fast" else (score[0], not reduces(config), score[1])
        scored.append((rank, str(config), score, config))
    _, _, score, config = min(scored)
    return config, score


def reduces(config: Config) -> bool:
    """Whether ``config`` ends with color reduction. Between configurations with as few colors
    on the fitted graphs, ``fewest`` takes one that reduces, then the faster: reduction never
    adds a color and removes some on graphs the fit may not have (er, regular: docs/auto.md)."""
    return parse_param_string(config[1]).get("reduce", "none") != "none"


def fit(table: Table) -> tuple[Rule, list[str]]:
    """The best rule for one backend's table, and a line per graph saying what it picks."""
    graphs = sorted(table.features)
    configs = [c for c in table.configs() if table.has(graphs, c)]
    if not configs:
        raise SpecError("no configuration was measured on every graph; fit on one suite's rows")
    candidates = []
    for skew, skew_margin in midpoints(table.features[g].skew for g in graphs):
        mesh = [g for g in graphs if table.features[g].skew < skew]
        for large, large_margin in midpoints(table.features[g].nnz for g in mesh):
            rule = Rule(skew, large, {})
            kinds = {k: [g for g in graphs if rule.kind(table.features[g]) == k] for k in KINDS}
            loss, worst = 1.0, 1.0
            for objective in OBJECTIVES:
                for members in filter(None, kinds.values()):
                    config, _ = best(table, members, configs, objective)
                    for g in members:
                        ratio = table.ratio(g, config, objective)[0]
                        loss, worst = loss * ratio, max(worst, ratio)
            used = sum(1 for members in kinds.values() if members)
            rank = (loss, -used, worst, -skew_margin, -large_margin)
            candidates.append((rank, skew, large, kinds))
    _, skew, large, kinds = min(candidates, key=lambda c: c[0])
    picks: dict[str, dict[str, Pick]] = {}
    report = []
    for objective in OBJECTIVES:
        fallback, _ = best(table, graphs, configs, objective)
        picks[objective] = {}
        for kind in KINDS:
            members = kinds[kind]
            config = best(table, members, configs, objective)[0] if members else fallback
            picks[objective][kind] = Pick(*config)
            for g in members:
                ratio = table.ratio(g, config, objective)[0]
                report.append(f"{objective:6} {kind:6} {g}: {_text(config)} ({ratio:.2f}x best)")
    return Rule(skew, large, picks), report


def _text(config: Config) -> str:
    name, params, block = config
    return name + (f":{params}" if params else "") + (f"@{block}" if block else "")


def rule_source(rules: Mapping[str, Rule]) -> str:
    """The fitted block of auto.py for ``rules``."""
    lines = [BEGIN, "RULES = {"]
    for backend, rule in sorted(rules.items()):
        lines += [
            f'    "{backend}": Rule(',
            f"        skew={_number(rule.skew)},",
            f"        large_nnz={_number(rule.large_nnz)},",
            "        picks={",
        ]
        for objective in OBJECTIVES:
            lines.append(f'            "{objective}": {{')
            for kind in KINDS:
                p = rule.picks[objective][kind]
                lines.append(f'                "{kind}": Pick({p.algorithm!r}, {p.params!r}, '
                             f"{p.block_size}),")  # fmt: skip
            lines.append("            },")
        lines += ["        },", "    ),"]
    lines += ["}", END]
    return "\n".join(lines).replace("'", '"')


def _number(x: float) -> str:
    return 'float("inf")' if math.isinf(x) else f"{x:.6g}".replace("e+", "e")  # ruff style


def write_rule(source: str, path: Path = AUTO_PY) -> None:
    text = path.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    path.write_text(text[:start] + source + text[stop:])


def chosen_config(params: str) -> Config:
    """The configuration an auto row's ``choice.*`` params name, with auto's own ``balance``
    (applied after the choice, so recorded once, as auto's)."""
    given = parse_param_string(params)
    prefix = auto.CHOICE + "."
    chosen = {k[len(prefix) :]: v for k, v in given.items() if k.startswith(prefix)}
    if "balance" in given:
        chosen["balance"] = given["balance"]
    block = chosen.pop("block_size", None)
    text = ";".join(f"{k}={chosen[k]}" for k in sorted(chosen))
    return given.get(auto.CHOICE, "?"), text, None if block is None else int(block)


def evaluate(rows: list[dict[str, str]]) -> list[str]:
    """Auto's rows against the others of their graph and backend, with the issue's targets."""
    out = []
    by_backend = tables(rows)
    for backend, table in sorted(by_backend.items()):
        autos: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
        for row in rows:
            if row["algorithm"] == "auto" and row["backend"] == backend:
                objective = parse_param_string(row["params"]).get("objective", "fast")
                autos[row["graph"], objective].append(row)
        for objective in OBJECTIVES:
            ratios = []
            for graph in sorted({g for g, o in autos if o == objective}):
                mine = autos[graph, objective]
                if graph not in table.fastest:
                    continue
                fastest, fewest = table.fastest[graph], table.fewest[graph]
                t = statistics.median(float(r["time_ms"]) for r in mine)
                c = statistics.median(float(r["colors"]) for r in mine)
                ratio = t / fastest if objective == "fast" else c / fewest
                ratios.append(ratio)
                choice = chosen_config(mine[0]["params"])
                alone = table.time.get((graph, choice))
                direct = "" if alone is None else f" (the choice run directly: {alone:.3f} ms)"
                out.append(f"{backend} {objective:6} {graph}: {_text(choice)}, {t:.3f} ms"
                           f"{direct} vs fastest {fastest:.3f}, {c:.0f} colors vs fewest "
                           f"{fewest:.0f}: {ratio:.2f}x")  # fmt: skip
            if not ratios:
                continue
            if objective == "fast":
                ok = geomean(ratios) <= 1.15 and max(ratios) <= 2.0
                goal = "geomean <= 1.15, each <= 2"
            else:
                ok = max(ratios) <= 1.05
                goal = "each <= 1.05"
            out.append(f"{backend} {objective}: geomean {geomean(ratios):.3f}x, worst "
                       f"{max(ratios):.2f}x ({goal}: {'met' if ok else 'NOT met'})")  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="+", help="results CSVs (gcbench run's schema)")
    parser.add_argument("--write", action="store_true", help="update gcbench/algorithms/auto.py")
    parser.add_argument("--evaluate", action="store_true", help="score auto's rows instead")
    args = parser.parse_args(argv)
    rows = read_rows(args.csv)
    if args.evaluate:
        print("\n".join(evaluate(rows)))
        return 0
    rules = dict(auto.RULES)
    for backend, table in sorted(tables(rows).items()):
        rules[backend], report = fit(table)
        print(f"{backend}: {len(table.features)} graphs, {len(table.configs())} configurations")
        print("\n".join(f"  {line}" for line in report))
    source = rule_source(rules)
    print(source)
    if args.write:
        write_rule(source)
        print(f"wrote {AUTO_PY}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
