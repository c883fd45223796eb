"""Aggregate per-repetition rows into per-configuration statistics and comparisons.

A *configuration* is algorithm + params for one problem (``config``, e.g.
``ecl-gc[shortcuts=none]``, ``greedy (d2)[order=natural]``), and a *group* is a
configuration on one graph at one block size (``label``, e.g. ``ecl-gc[shortcuts=none]@256``;
CPU rows have no ``@``). A *case* is a graph and a problem: what groups are compared on
(fastest, fewest colors, bound, speedup), so rows of d1 and of a distance-2 problem on one
graph never mix. Timing statistics use only ``ok`` rows; every other status is counted per
group, never averaged in (docs/report.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gcbench.bench.results import (
    BALANCE_COLUMNS,
    BOUND_COLUMNS,
    FLAG_CAUSES,
    FLAGS,
    FLOOR_CAUSE,
    HOST_CAUSE,
    HOST_COLUMNS,
    LEVEL_COLUMNS,
    STATUSES,
    is_suspect,
)
from gcbench.errors import InputError, SpecError
from gcbench.grammar import (
    DEFAULT_PROBLEM,
    PATTERN_PROBLEMS,
    PROBLEMS,
    parse_param_string,
    requested_params,
    varying_keys,
)
from gcbench.report.defaults import CLIQUE, DELTA_1, KNOWN, MAX_ROW, PROBLEM_BOUNDS
from gcbench.stats import median_ci, ratio_ci

KEYS = ["graph", "problem", "algorithm", "params", "block_size"]
CASE = ["graph", "problem"]  # what groups are compared on
FAILURES = [s for s in STATUSES if s != "ok"]
# The speedup baseline by default (docs/report.md, "Speedups and the baseline"): cuSPARSE's
# csrcolor where GPU rows are in the results, the largest-degree-first greedy on CPU-only ones.
GPU_BASELINE = "cusparse"
CPU_BASELINE = "greedy[order=ldf]"
# Per case (graph, problem): its size and what it allows, with the fewest colors any group
# used on it.
GRAPH_COLUMNS = ["graph", "problem", "label", "n", "m", "nets", *BOUND_COLUMNS, "bound",
                 "bound_kind", "fewest_colors", "fewest_gap", "at_bound", "configs"]  # fmt: skip
MEANS_COLUMNS = ["label", "graphs", "speedup_geomean", "speedup_hmean", "speedup_min",
                 "speedup_max", "colors_rel_geomean"]  # fmt: skip
HOST_TABLE = ["config", "cases", "host_share", "host_syncs"]
# Medians over a group's ok rows beside those of the times (summarise).
MEDIANS = (*BALANCE_COLUMNS, *LEVEL_COLUMNS, *HOST_COLUMNS, "host_share")
BLOCK_COLUMNS = ["graph", "config", "block_sizes", "best_block_size", "best_time_ms",
                 "worst_block_size", "worst_time_ms", "worst_over_best"]  # fmt: skip


def with_problem(name: str, problem: str) -> str:
    """``name`` for the d1 problem, ``name (problem)`` for another: how a configuration, a
    group or a case names a distance-2 problem."""
    return name if problem == DEFAULT_PROBLEM else f"{name} ({problem})"


def split_problem(name: str) -> tuple[str, str | None]:
    """``greedy (d2)`` → (``greedy``, ``d2``); a name without a problem → (name, None)."""
    head, space, tail = name.rpartition(" (")
    if space and tail.endswith(")") and tail[:-1] in PROBLEMS:
        return head, tail[:-1]
    return name, None


def config_label(
    algorithm: pd.Series, params: pd.Series, problem: pd.Series | None = None
) -> pd.Series:
    """Readable configuration names: ``algo[k=v,k=v]`` from the canonical ``k=v;k=v``,
    showing only the parameters whose value differs between this algorithm's
    configurations for the same problem in the data (``params`` keeps them all); ``algo``
    when none differs. A problem other than d1 follows the name: ``greedy (d2)[order=ff]``
    (:func:`with_problem`; ``problem`` None: every row d1)."""
    if problem is None:
        problem = pd.Series(DEFAULT_PROBLEM, index=algorithm.index)
    triples = pd.DataFrame({"algorithm": algorithm, "params": params, "problem": problem})
    names: dict[tuple[str, str, str], str] = {}
    for (algo, solved), group in triples.drop_duplicates().groupby(["algorithm", "problem"]):
        settings = [dict(kv.split("=", 1) for kv in p.split(";") if kv) for p in group["params"]]
        varying = varying_keys(settings)
        name = with_problem(str(algo), str(solved))
        for text, d in zip(group["params"], settings, strict=True):
            shown = ",".join(f"{k}={d[k]}" for k in varying if k in d)
            names[algo, text, solved] = f"{name}[{shown}]" if shown else name
    keys = zip(algorithm, params, problem, strict=True)
    return pd.Series([names[key] for key in keys], index=algorithm.index)


def group_label(config: pd.Series, block_size: pd.Series) -> pd.Series:
    """``config@block`` for GPU groups, ``config`` where the block size is empty."""
    block = block_size.astype("string").fillna("")
    return config.where(block == "", config + "@" + block)


def _failure_note(counts: pd.DataFrame) -> pd.Series:
    """The non-ok statuses of each group as text ("3 timeout", "1 invalid, 2 error") or ""."""
    parts = [np.where(counts[s] > 0, counts[s].astype(str) + " " + s, "") for s in FAILURES]
    joined = pd.Series([", ".join(p for p in row if p) for row in zip(*parts, strict=True)])
    return joined.set_axis(counts.index)


def flag_union(values: Iterable[str]) -> str:
    """The flags named in ``values`` (each a ";"-joined list), once each, in FLAGS order (a
    flag this gcbench does not know after them, by name), ";"-joined; "" for none."""
    named = {f.strip() for v in values for f in v.split(";")} - {""}
    rank = {f: i for i, f in enumerate(FLAGS)}
    return ";".join(sorted(named, key=lambda f: (rank.get(f, len(FLAGS)), f)))


def _median_intervals(times: pd.Series) -> np.ndarray:
    """(low, high) of each group's 95 % interval of the median (:func:`median_ci`), one row
    per group; NaN where there are too few times for one."""
    bounds = [median_ci(t) or (np.nan, np.nan) for t in times]
    return np.array(bounds, dtype=float).reshape(-1, 2)


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per group: repetition counts by status and statistics of the ``ok`` rows.

    ``time_ms``, ``transfer_ms``, ``total_ms``, ``colors`` and ``iterations`` are medians
    over ok rows; ``time_ci_low_ms``/``time_ci_high_ms`` bound the 95 % confidence interval
    of the median time (NaN with fewer than 6 ok times), ``near_fastest`` says whether it
    overlaps the interval of the fastest group on the graph; ``time_min_ms``,
    ``time_q1_ms``/``time_q3_ms`` and ``time_iqr_ms`` describe the spread of ``time_ms``, and
    ``ok_times_ms`` holds the ok times themselves (sorted; for intervals of speedups).
    ``flags`` is the union of the rows' flags ("" when clean or before schema v3).
    What the case allows (:func:`graph_bounds`: ``chi_lower``, ``degeneracy``,
    ``chi_known``, ``bound``, ``bound_kind``) is repeated on each of its groups;
    ``colors_gap`` is the median colors minus ``bound`` (NaN where either is missing) and
    ``reaches_bound`` whether they are equal: a coloring with as few colors as a lower bound
    is provably optimal (False where there is no bound or no valid coloring). ``nets`` is
    the rows of a distance-2 group's matrix (NaN for d1) and ``recovered`` whether every
    repetition that checked it recovered J from B = J·S (False if one did not, NA where
    none checked: d1).
    Throughput is n (resp. the CSV's m, undirected edges) per second of median ``time_ms``,
    in millions. The balance and level columns are medians too (NaN where the rows have
    none); ``trsv_speedup`` is the natural order's solve time over the color order's.
    ``device_ms`` and ``host_syncs`` (schema v6, GPU rows) are medians over ok rows too, and
    ``host_share`` the median of their :func:`host_share` (NaN where no row records them).
    """
    # CPU rows have no block size; a 0 stands in while grouping so joins match keys exactly.
    rows = rows.assign(
        block_size=rows["block_size"].fillna(0),
        ok_time=rows["time_ms"].where(rows["status"] == "ok"),
        host_share=host_share(rows),
    )
    groups = rows.groupby(KEYS, sort=True)
    out = groups.agg(
        backend=("backend", "first"),
        n=("n", "max"),
        m=("m", "max"),
        reps=("status", "size"),
        runs=("run_id", "nunique"),
        count_setup=("count_setup", "first"),
        error_message=("error", lambda s: next((e for e in s if e), "")),
        flags=("flags", flag_union),
        nets=("nets", "max"),
        recovered=("recovered", _all_recovered),
    )
    out["recovered"] = out["recovered"].astype("boolean")
    out["ok_times_ms"] = groups["ok_time"].apply(lambda t: tuple(sorted(t.dropna())))
    out[["time_ci_low_ms", "time_ci_high_ms"]] = _median_intervals(out["ok_times_ms"])
    counts = rows.groupby([*KEYS, "status"]).size().unstack("status", fill_value=0)
    out = out.join(counts.reindex(columns=list(STATUSES), fill_value=0))
    ok = rows[rows["status"] == "ok"].groupby(KEYS)
    time = ok["time_ms"]
    stats = pd.DataFrame(
        {
            "time_ms": time.median(),
            "time_min_ms": time.min(),
            "time_q1_ms": time.quantile(0.25),
            "time_q3_ms": time.quantile(0.75),
            "transfer_ms": ok["transfer_ms"].median(),
            "total_ms": ok["total_ms"].median(),
            "colors": ok["colors"].median(),
            "iterations": ok["iterations"].median(),
            **{column: ok[column].median() for column in MEDIANS},
        }
    )
    out = out.join(stats)
    out["trsv_speedup"] = out["trsv_natural_ms"] / out["trsv_colored_ms"]
    out["time_iqr_ms"] = out["time_q3_ms"] - out["time_q1_ms"]
    out["note"] = _failure_note(out)
    out = in_graph_order(out.reset_index(), rows["graph"].unique())
    out = out.join(graph_bounds(rows), on=CASE)
    out["colors_gap"] = out["colors"] - out["bound"]
    out["reaches_bound"] = out["colors_gap"].eq(0)
    out["block_size"] = out["block_size"].astype("Int64").replace(0, pd.NA)
    requested = out["params"].map(requested_params)  # auto: one configuration, any choice
    out["config"] = config_label(out["algorithm"], requested, out["problem"])
    out["label"] = group_label(out["config"], out["block_size"])
    out["near_fastest"] = _near_fastest(out)
    seconds = out["time_ms"] / 1e3
    out["mverts_per_s"] = out["n"] / seconds / 1e6
    out["medges_per_s"] = out["m"] / seconds / 1e6
    return out


def host_share(rows: pd.DataFrame) -> pd.Series:
    """Per row, the share of its timed call that was the host: 1 − ``device_ms`` /
    ``time_ms``, the time the GPU sat idle on the host's blocking reads; NaN where the row
    lacks a host column (CPU rows, files before schema v6) or a positive time."""
    measured = rows[list(HOST_COLUMNS)].notna().all(axis=1) & (rows["time_ms"] > 0)
    return (1 - rows["device_ms"] / rows["time_ms"]).where(measured)


def _all_recovered(values: pd.Series) -> bool | None:
    """Whether every repetition that checked recovered J (None where none checked)."""
    checked = values.dropna()
    return None if checked.empty else bool(checked.all())


def graph_bounds(rows: pd.DataFrame) -> pd.DataFrame:
    """Per case (graph, problem: the index): ``chi_lower`` (d1: a clique found in the graph;
    a distance-2 problem: its lower bound, :data:`~gcbench.report.defaults.PROBLEM_BOUNDS`),
    ``degeneracy``, ``chi_known`` (the χ the graph's source publishes; d1 only), each the
    largest over its rows of any status (NaN where no row has it: files before schema v4),
    ``bound`` (``chi_known`` where known, else ``chi_lower``; the clique where it is larger
    than the published χ, which :func:`bound_notes` reports) and ``bound_kind``
    (:data:`KNOWN`, :data:`CLIQUE`, a distance-2 problem's kind, or "")."""
    bounds = rows.groupby(CASE, sort=False)[list(BOUND_COLUMNS)].max()
    problems = bounds.index.get_level_values("problem")
    known = (
        (problems == DEFAULT_PROBLEM)
        & bounds["chi_known"].notna()
        & ~(bounds["chi_lower"] > bounds["chi_known"])
    )
    bounds["bound"] = bounds["chi_known"].where(known, bounds["chi_lower"])
    lower = [PROBLEM_BOUNDS.get(p, CLIQUE) for p in problems]
    bounds["bound_kind"] = np.where(known, KNOWN, np.where(bounds["chi_lower"].notna(), lower, ""))
    return bounds


def graphs_table(summary: pd.DataFrame, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per case (graph, problem), in the summary's order: the short ``label`` the
    figures give the graph (from ``labels``, one line; the graph itself where none is
    given), its size (and ``nets``, a distance-2 problem's rows), bounds
    (:func:`graph_bounds`), the fewest median colors of any group on it and that minus the
    bound (``fewest_gap``), the configurations with a group at the bound (``at_bound``, a
    tuple, fastest first) and how many configurations have a valid coloring there
    (``configs``)."""
    first = summary.groupby(CASE, sort=False).first()
    valid = summary.dropna(subset=["colors"])
    at = valid[valid["reaches_bound"]].sort_values(["time_ms", "config"])
    out = first[["n", "m", "nets", *BOUND_COLUMNS, "bound", "bound_kind"]].copy()
    out["fewest_colors"] = valid.groupby(CASE)["colors"].min()
    out["fewest_gap"] = out["fewest_colors"] - out["bound"]
    names = at.drop_duplicates([*CASE, "config"]).groupby(CASE)["config"].agg(tuple)
    out["at_bound"] = [names.get(case, ()) for case in out.index]
    out["configs"] = valid.groupby(CASE)["config"].nunique()
    out["configs"] = out["configs"].fillna(0).astype(int)
    out = out.reset_index()
    out["label"] = [" ".join((labels or {}).get(g, g).split("\n")) for g in out["graph"]]
    return out[GRAPH_COLUMNS]


BOUND_TABLE = ["config", "graphs", "at_bound", "gap_median", "gap_max"]


def config_gaps(summary: pd.DataFrame) -> pd.DataFrame:
    """Per configuration (of one problem), at its fastest block size on each graph (as in
    the figures): on how many graphs with a bound it has a valid coloring (``graphs``), on
    how many of them it reaches the bound (``at_bound``), and the median and largest colors
    over the bound; most graphs at the bound first (ties: smaller median gap, then name).
    Empty where no graph has a bound."""
    return _per_config(
        summary,
        "colors_gap",
        lambda g: {
            "graphs": g.size(),
            "at_bound": g["reaches_bound"].sum().astype(int),
            "gap_median": g["colors_gap"].median(),
            "gap_max": g["colors_gap"].max(),
        },
        {"at_bound": False, "gap_median": True, "config": True},
        BOUND_TABLE,
    )


def host_shares(summary: pd.DataFrame) -> pd.DataFrame:
    """Per configuration whose rows record how much was the host (schema v6: GPU rows), at
    its fastest block size in each case (as the figures): on how many cases it has them
    (``cases``), and the medians over those cases of its group's median ``host_share`` and
    ``host_syncs``; the largest share first (ties: name). Empty where no row records them."""
    return _per_config(
        summary,
        "host_share",
        lambda g: {
            "cases": g.size(),
            "host_share": g["host_share"].median(),
            "host_syncs": g["host_syncs"].median(),
        },
        {"host_share": False, "config": True},
        HOST_TABLE,
    )


def _per_config(
    summary: pd.DataFrame,
    needs: str,
    columns: Callable[[Any], dict[str, pd.Series]],
    order: dict[str, bool],
    table: list[str],
) -> pd.DataFrame:
    """One row per configuration, at its fastest block size in each case, over the cases
    that have ``needs``: the ``columns`` of its groups, sorted by ``order`` (column ->
    ascending); empty (with ``table``'s columns) where no case has it."""
    best = best_block_per_config(summary).dropna(subset=[needs])
    if best.empty:
        return pd.DataFrame(columns=table)
    out = pd.DataFrame(columns(best.groupby("config"))).rename_axis("config").reset_index()
    out = out.sort_values(list(order), ascending=list(order.values()))
    return out[table].reset_index(drop=True)


BOUND_WORDS = {KNOWN: "its published χ", CLIQUE: "a clique found in it",
               DELTA_1: "Δ+1, its largest closed neighbourhood",
               MAX_ROW: "the largest row count of its matrix"}  # fmt: skip


def bound_notes(summary: pd.DataFrame) -> list[str]:
    """Notes on the bounds: none known for any graph (results before schema v4), a clique
    larger than the χ the graph's source publishes (the published value does not hold for
    this graph: the clique is the bound), or a group that used fewer colors than its
    case's bound (the bound or the coloring is wrong: a valid coloring never uses fewer
    colors than a clique's size or χ, nor a distance-2 one fewer than its lower bound)."""
    if summary["bound"].isna().all():
        return [
            "no graph has a known bound on its colors (chi_lower, chi_known: recorded since"
            " result schema v4), so colors are not compared with one"
        ]
    graphs = summary[summary["problem"] == DEFAULT_PROBLEM].drop_duplicates("graph")
    overruled = graphs[graphs["chi_known"].notna() & (graphs["bound_kind"] == CLIQUE)]
    notes = [  # graph_bounds took the clique over the published χ
        f"{row.graph}: a clique of {row.chi_lower:g} was found but its source publishes χ ="
        f" {row.chi_known:g}; the published value does not hold for this graph, so the clique"
        " is its bound"
        for row in overruled.itertuples()
    ]
    below = summary[summary["colors_gap"] < 0]
    for (graph, problem), part in below.groupby(CASE, sort=False):
        row = part.iloc[0]
        what = BOUND_WORDS.get(row["bound_kind"], row["bound_kind"])
        notes.append(
            f"on {with_problem(graph, problem)}, {_listing(list(part['label']))} used fewer"
            f" colors than the bound ({row['bound']:g}, {what}): the bound does not hold for"
            " this graph or the coloring is wrong"
        )
    return notes


def _fastest(summary: pd.DataFrame) -> pd.DataFrame:
    """Each case's fastest group: least median time; ties by colors, then label."""
    valid = summary.dropna(subset=["time_ms"])
    return valid.sort_values(["time_ms", "colors", "label"]).groupby(CASE).head(1)


def per_case(summary: pd.DataFrame, values: pd.Series) -> np.ndarray:
    """``values`` (indexed by case: graph, problem) at each group's case; NaN where absent."""
    cases = pd.MultiIndex.from_frame(summary[CASE])
    return values.reindex(cases).to_numpy(dtype=float)


def _near_fastest(summary: pd.DataFrame) -> pd.Series:
    """Whether a group's interval of the median time overlaps that of the fastest group of
    its case, so the two are not told apart; False for the fastest itself and wherever
    either has no interval."""
    fastest = _fastest(summary)
    ends = fastest.set_index(CASE)[["time_ci_low_ms", "time_ci_high_ms"]]
    low = per_case(summary, ends["time_ci_low_ms"])
    high = per_case(summary, ends["time_ci_high_ms"])
    overlap = (summary["time_ci_low_ms"] <= high) & (summary["time_ci_high_ms"] >= low)
    return overlap & ~summary.index.isin(fastest.index)


# What a flag means where no GPU row is in the results (FLAG_CAUSES names the GPU too).
CPU_FLAG_CAUSES = {"contended": "ran while another process used the CPU cores"}


def gpu_rows(summary: pd.DataFrame) -> bool:
    """Whether any group ran on a GPU (the report's wording and default baseline follow)."""
    return bool((summary["backend"] == "gpu").any())


def has_block_sizes(frame: pd.DataFrame) -> bool:
    """Whether any group of ``frame`` has a block size: only then do the figures and tables
    say "at its best block size"."""
    return "block_size" in frame and bool(frame["block_size"].notna().any())


def flag_notes(summary: pd.DataFrame) -> list[str]:
    """A note per flag that some group carries, saying how many groups and what it means for
    their times; none for results without flags (schema v1 and v2 files have none)."""
    counts = summary["flags"].str.split(";").explode().value_counts()
    gpu = gpu_rows(summary) or "throttled" in counts.index  # only a GPU throttles
    causes = {flag: cause for flag, (cause, _) in FLAG_CAUSES.items()}
    causes.update({} if gpu else CPU_FLAG_CAUSES)
    notes = []
    for flag in flag_union(counts.index).split(";"):
        if flag:
            n = int(counts[flag])
            groups = f"{n} group{'s' if n != 1 else ''}"
            if flag == "floor":
                notes.append(f"{groups} {FLOOR_CAUSE} (floor): as sure as gcbench can measure")
                continue
            if flag == "host":
                notes.append(f"{groups} {HOST_CAUSE} (host): compare them across runs with care")
                continue
            what = f"{causes[flag]} ({flag})" if flag in causes else f"are {flag}"
            notes.append(f"{groups} {what}: their times are unreliable")
    return notes


def suspect(flags: pd.Series) -> pd.Series:
    """Per row of ``flags`` (";"-joined lists), whether they make its times suspect: every
    flag but ``floor`` and ``host`` does (docs/statistics.md)."""
    return flags.fillna("").astype(str).map(is_suspect).astype(bool)


def in_graph_order(frame: pd.DataFrame, graphs: Sequence[str]) -> pd.DataFrame:
    """``frame`` stably sorted so its graphs follow ``graphs`` (the order the run used)."""
    rank = {g: i for i, g in enumerate(graphs)}
    return frame.sort_values("graph", key=lambda g: g.map(rank), kind="stable", ignore_index=True)


def _listing(items: Sequence[str], limit: int = 3) -> str:
    """``a, b, c`` or, past ``limit`` items, ``a, b, c +2 more``."""
    shown = ", ".join(items[:limit])
    return shown + (f" +{len(items) - limit} more" if len(items) > limit else "")


def provenance(rows: pd.DataFrame) -> str:
    """Where and when the rows were measured, for a figure's subtitle: the GPU model(s)
    (and ``CPU`` where CPU algorithms ran), the host(s) and the UTC date or date range,
    e.g. ``NVIDIA H200 + CPU · host node-a · 2025-06-01``. Parts without data are left out."""
    gpus = sorted({d for d in rows["device_name"] if d})
    devices = _listing(gpus)
    if (rows["backend"] == "cpu").any():
        devices = f"{devices} + CPU" if devices else "CPU"
    hosts = sorted({h for h in rows["host"] if h})
    parts = [devices]
    if hosts:
        parts.append(("host " if len(hosts) == 1 else "hosts ") + _listing(hosts))
    if "timestamp" in rows:
        when = pd.to_datetime(rows["timestamp"], utc=True, errors="coerce", format="ISO8601")
        days = sorted({d.date().isoformat() for d in when.dropna()})
        if days:
            parts.append(days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}")
    return " · ".join(p for p in parts if p)


def matching(summary: pd.DataFrame, name: str) -> pd.Series:
    """Rows that ``name`` names (a baseline, compare's --a and --b): an algorithm, a
    configuration or a group label."""
    for column in ("algorithm", "config", "label"):
        hit = summary[column] == name
        if hit.any():
            return hit
    return pd.Series(False, index=summary.index)


def baseline_rows(summary: pd.DataFrame, name: str) -> pd.Series:
    """Rows that the baseline ``name`` names: as :func:`matching`, else, for
    ``ALGO[k=v,...]``, the configurations of ALGO with those parameter values, whatever
    their other parameters (``greedy[order=ldf]`` names ``greedy[order=ldf,seed=1]`` too,
    and ``greedy`` where only that order ran, so its label shows no parameter), of every
    problem, or of one where ALGO names it (``greedy (d2)[order=natural]``)."""
    hit = matching(summary, name)
    head, bracket, rest = name.partition("[")
    if hit.any() or not bracket or not rest.endswith("]"):
        return hit
    try:
        wanted = parse_param_string(rest[:-1].replace(",", ";"))
    except SpecError:
        return hit
    algo, problem = split_problem(head)
    params = summary["params"].map(lambda p: parse_param_string(requested_params(p)))
    has = params.map(lambda d: all(d.get(k) == v for k, v in wanted.items()))
    solved = summary["problem"] == problem if problem else True
    return (summary["algorithm"] == algo) & has & solved


def _best_time_per_case(summary: pd.DataFrame, mask: pd.Series) -> pd.Series:
    return summary[mask].groupby(CASE)["time_ms"].min().dropna()


def _fastest_per_case(summary: pd.DataFrame, mask: pd.Series) -> pd.Series:
    """The index of the fastest group of ``mask`` in each case that it has a time in: the
    group that sets the baseline time there (docs/report.md, "Speedups and the baseline")."""
    timed = summary[mask].dropna(subset=["time_ms"])
    return timed.groupby(CASE)["time_ms"].idxmin()


def baseline_label(summary: pd.DataFrame, baseline: str | None) -> str | None:
    """The baseline as figures and headings name it: the full configuration label of the
    group that sets its time (``greedy[balance=none,order=ldf,reduce=none]`` where
    ``greedy[order=ldf]`` names that one and its ``reduce=h2`` and ``balance=shuffle``
    siblings), or, where different configurations set it on different graphs, ``the fastest
    of A, B on each graph``. None without a baseline time in ``summary``."""
    if baseline is None:
        return None
    fastest = _fastest_per_case(summary, baseline_rows(summary, baseline))
    configs = list(dict.fromkeys(summary.loc[fastest, "config"]))
    if len(configs) < 2:
        return next(iter(configs), None)
    return f"the fastest of {', '.join(configs)} on each graph"


def choose_baseline(summary: pd.DataFrame, requested: str | None) -> tuple[str | None, str]:
    """The baseline name and a sentence saying why it was chosen, or None and why there is
    none (then there are no speedups).

    ``requested`` (``--baseline``) must name an algorithm, configuration or group label in
    the results, or ``ALGO[k=v,...]`` (:func:`baseline_rows`). Without it the default is
    :data:`GPU_BASELINE` (``cusparse``) where any group ran on a GPU and
    :data:`CPU_BASELINE` (``greedy[order=ldf]``, at whatever other parameters) on CPU-only
    results; where the default has no valid time there is no baseline, and the sentence says
    how to pick one. It is never chosen from the data (such as the slowest algorithm): a
    speedup means the same thing from one report to the next.
    """
    algorithms = ", ".join(sorted(summary["algorithm"].unique()))
    if requested is not None:
        if not baseline_rows(summary, requested).any():
            raise InputError(
                f"baseline {requested!r} is not in the results (algorithms: {algorithms});"
                " pass one of them, a configuration or a label to --baseline"
            )
        return requested, f"baseline {requested} (--baseline)"
    gpu = gpu_rows(summary)
    name = GPU_BASELINE if gpu else CPU_BASELINE
    which = "results with GPU rows" if gpu else "CPU-only results"
    named = baseline_rows(summary, name)
    if _best_time_per_case(summary, named).size:
        return name, f"baseline {name} (the default for {which})"
    why = "has no valid time" if named.any() else "is not in the results"
    return None, (
        f"no speedups: the default baseline for {which}, {name}, {why}; pick one with"
        f" --baseline: an algorithm ({algorithms}) or a configuration as the tables name it"
        " (ALGO[k=v])"
    )


def _speedup_intervals(summary: pd.DataFrame, reference: pd.Series) -> np.ndarray:
    """(low, high) of each group's speedup's 95 % interval, one row per group: that of
    median(reference's times) / median(group's times) (:func:`ratio_ci`, from the ok times
    of its reference group, ``reference``: the index of each group's reference, NaN for
    none). (1, 1) for the reference itself, its own measure; NaN without a reference or
    enough times."""
    out = np.full((len(summary), 2), np.nan)
    times = summary["ok_times_ms"]
    for i, (index, ref) in enumerate(zip(summary.index, reference, strict=True)):
        if pd.isna(ref):
            continue
        ref = int(ref)
        if ref == index:
            out[i] = 1.0
        elif ref is not None and (found := ratio_ci(times[index], times[ref])) is not None:
            out[i] = found.low, found.high
    return out


def add_comparisons(summary: pd.DataFrame, baseline: str | None) -> list[str]:
    """Add ``speedup`` (vs the baseline's best median time in the case: the graph and
    problem) with its 95 % interval (``speedup_ci_low``/``speedup_ci_high``) and
    ``colors_rel`` (median colors / the fewest median colors in the case) in place; return
    notes: one per problem the baseline did not solve, and the cases of the others where it
    has no valid time."""
    notes: list[str] = []
    fewest = summary.groupby(CASE)["colors"].transform("min")
    summary["colors_rel"] = summary["colors"] / fewest
    summary[["speedup", "speedup_ci_low", "speedup_ci_high"]] = np.nan
    if baseline is None:
        return notes
    mask = baseline_rows(summary, baseline)
    base = _best_time_per_case(summary, mask)
    summary["speedup"] = per_case(summary, base) / summary["time_ms"]
    best = _fastest_per_case(summary, mask)  # the baseline's best group per case
    reference = per_case(summary, best.astype(float))
    summary[["speedup_ci_low", "speedup_ci_high"]] = _speedup_intervals(summary, reference)
    solved = set(summary.loc[mask, "problem"])
    unsolved = [p for p in PROBLEMS if p in set(summary["problem"]) - solved]
    if unsolved:
        also = " (the distance-2 table compares them with greedy)" if set(unsolved) <= set(
            PATTERN_PROBLEMS) else ""  # fmt: skip
        notes.append(
            f"{baseline} has no row of {', '.join(unsolved)}: no speedup over it there{also}"
        )
    cases = summary[summary["problem"].isin(solved)].drop_duplicates(CASE)
    missing = sorted(
        with_problem(g, p)
        for g, p in zip(cases["graph"], cases["problem"], strict=True)
        if (g, p) not in base.index
    )
    if missing:
        notes.append(f"no valid {baseline} time on {', '.join(missing)}: no speedup there")
    return notes


def speedup_means(summary: pd.DataFrame) -> pd.DataFrame:
    """Per group label: geometric and harmonic means of the speedup across graphs.

    Means use only the graphs where the label has a speedup (``graphs`` says how many), and
    ``colors_rel_geomean`` is the geometric mean of ``colors_rel`` over the same graphs.
    """
    valid = summary.dropna(subset=["speedup"])
    if valid.empty:
        return pd.DataFrame(columns=MEANS_COLUMNS)
    s = valid.groupby("label", sort=False)["speedup"]
    out = pd.DataFrame(
        {
            "graphs": s.size(),
            "speedup_geomean": np.exp(np.log(valid["speedup"]).groupby(valid["label"]).mean()),
            "speedup_hmean": s.size() / (1.0 / valid["speedup"]).groupby(valid["label"]).sum(),
            "speedup_min": s.min(),
            "speedup_max": s.max(),
            "colors_rel_geomean": np.exp(
                np.log(valid["colors_rel"]).groupby(valid["label"]).mean()
            ),
        }
    )
    return out.sort_values("speedup_geomean", ascending=False).rename_axis("label").reset_index()


def winners(summary: pd.DataFrame) -> pd.DataFrame:
    """Per case (graph, problem): the fastest group (median time) and the one with fewest
    colors (ties: faster). ``fastest_near``: the other groups whose interval of the median
    time overlaps the fastest's (:func:`_near_fastest`), by median time: none is known to be
    slower."""
    valid = summary.dropna(subset=["time_ms"])
    fast = _fastest(valid)
    few = valid.sort_values(["colors", "time_ms", "label"]).groupby(CASE).head(1)
    tried = summary.groupby(CASE, sort=False).size().rename("groups")
    out = fast.set_index(CASE)[["label", "time_ms", "speedup", "colors"]].add_prefix("fastest_")
    out = out.join(few.set_index(CASE)[["label", "colors", "time_ms"]].add_prefix("fewest_"))
    out = out.join(valid.groupby(CASE).size().rename("valid_groups"))
    out = tried.to_frame().join(out, how="left").reset_index()
    near = valid[valid["near_fastest"]].sort_values(["time_ms", "label"])
    near = near.groupby(CASE)["label"].agg(tuple)
    cases = zip(out["graph"], out["problem"], strict=True)
    out.insert(4, "fastest_near", [near.get(case, ()) for case in cases])
    return out


def best_block_sizes(summary: pd.DataFrame) -> pd.DataFrame:
    """Per graph × configuration run at several block sizes: the fastest and slowest one."""
    gpu = summary.dropna(subset=["block_size", "time_ms"])
    gpu = gpu[gpu.groupby(["graph", "config"])["block_size"].transform("nunique") > 1]
    if gpu.empty:
        return pd.DataFrame(columns=BLOCK_COLUMNS)
    ordered = gpu.sort_values(["graph", "config", "time_ms", "block_size"])
    grouped = ordered.groupby(["graph", "config"], sort=True)
    first, last = grouped.head(1).set_index(["graph", "config"]), grouped.tail(1)
    last = last.set_index(["graph", "config"])
    out = pd.DataFrame(
        {
            "block_sizes": grouped["block_size"].apply(
                lambda b: ",".join(str(v) for v in sorted(b))
            ),
            "best_block_size": first["block_size"],
            "best_time_ms": first["time_ms"],
            "worst_block_size": last["block_size"],
            "worst_time_ms": last["time_ms"],
        }
    )
    out["worst_over_best"] = out["worst_time_ms"] / out["best_time_ms"]
    return in_graph_order(out.reset_index(), summary["graph"].unique())


def pareto_mask(frame: pd.DataFrame) -> pd.Series:
    """Per row of ``frame``, whether it is on its case's Pareto front of median time and
    median colors: no other row of the case (graph, problem) is both no slower and uses no
    more colors, and strictly better in one. Exact ties of both are on it together; a row
    without a time or colors is not. The front is on medians: their intervals are not used.
    """
    out = pd.Series(False, index=frame.index)
    valid = frame.dropna(subset=["time_ms", "colors"])
    for _, part in valid.groupby(CASE, sort=False):
        t, c = part["time_ms"].to_numpy(float), part["colors"].to_numpy(float)
        no_worse = (t[:, None] <= t) & (c[:, None] <= c)  # [i, j]: i is no worse than j
        better = (t[:, None] < t) | (c[:, None] < c)
        out[part.index] = ~(no_worse & better).any(axis=0)
    return out


def pareto(summary: pd.DataFrame) -> pd.DataFrame:
    """Per case (graph, problem), the groups no other group beats on both median time and
    median colors (:func:`pareto_mask`); among exact (time, colors) ties the first label
    alphabetically is kept."""
    front = summary[pareto_mask(summary)]
    ordered = front.sort_values(["graph", "problem", "time_ms", "colors", "label"])
    ordered = ordered.drop_duplicates([*CASE, "time_ms", "colors"])
    columns = ["graph", "problem", "label", "time_ms", "colors", "speedup"]
    return in_graph_order(ordered[columns], summary["graph"].unique())


CHI_TABLE = ["graph", "config", "time_ms", "colors", "fewest", "chi_known", "colors_over_chi",
             "bound", "bound_kind", "colors_over_bound"]  # fmt: skip
CHI_MEANS = ["config", "instances", "chi_geomean", "chi_max", "at_chi"]


def chi_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Colors against the published χ (the classic-coloring suite's instances): per graph
    (d1) × configuration with a valid coloring, at its fastest block size (as in the
    figures), its median time and colors, whether those are the fewest of the graph's rows
    (``fewest``), the χ the graph's source publishes (``chi_known``, NaN where none) and
    colors ÷ χ, and beside them the graph's bound (:func:`graph_bounds`) and colors ÷ bound;
    by graph, then colors, time and name. Empty where no graph has a published χ."""
    d1 = summary[summary["problem"] == DEFAULT_PROBLEM]
    if d1["chi_known"].isna().all():
        return pd.DataFrame(columns=CHI_TABLE)
    best = best_block_per_config(d1).dropna(subset=["colors"])
    best = best.assign(
        fewest=best["colors"].eq(best.groupby("graph")["colors"].transform("min")),
        colors_over_chi=best["colors"] / best["chi_known"],
        colors_over_bound=best["colors"] / best["bound"],
    )
    ordered = best.sort_values(["colors", "time_ms", "config"])
    return in_graph_order(ordered, summary["graph"].unique())[CHI_TABLE]


def chi_means(summary: pd.DataFrame) -> pd.DataFrame:
    """Per configuration, over the graphs with a published χ where it has a valid coloring
    (at its fastest block size, :func:`chi_table`): how many (``instances``), the geometric
    mean and the largest of colors ÷ χ, and on how many it uses χ colors (``at_chi``); the
    smallest mean first (ties: name). Empty where no graph has a published χ."""
    return _per_config(
        summary.assign(colors_over_chi=summary["colors"] / summary["chi_known"]),
        "colors_over_chi",
        lambda g: {
            "instances": g.size(),
            "chi_geomean": np.exp(g["colors_over_chi"].agg(lambda r: np.log(r).mean())),
            "chi_max": g["colors_over_chi"].max(),
            "at_chi": g["colors_over_chi"].agg(lambda r: int((r == 1).sum())),
        },
        {"chi_geomean": True, "config": True},
        CHI_MEANS,
    )


def best_block_per_config(summary: pd.DataFrame) -> pd.DataFrame:
    """Each configuration at its fastest block size per graph (for one bar per configuration).

    Groups with no valid time are kept (one per configuration) so plots can mark them.
    """
    ordered = summary.sort_values(["graph", "config", "time_ms", "block_size"], na_position="last")
    best = ordered.groupby(["graph", "config"], sort=False).head(1)
    return in_graph_order(best, summary["graph"].unique())


def performance_ratios(best: pd.DataFrame, value: str) -> pd.DataFrame:
    """Dolan & Moré's performance ratios (Math. Program. 91, 2002, §2), graph × configuration:
    a configuration's ``value`` on a graph over the smallest ``value`` of any configuration
    there (1 = the best). ``best`` holds one row per graph × configuration (its fastest block
    size, :func:`best_block_per_config`). No valid value on a graph (a failure, or not run
    there) is a ratio of inf: never within any factor. Graphs where no configuration has a
    valid value have no best and are left out.
    """
    table = best.pivot(index="graph", columns="config", values=value).astype(float)
    table = table.dropna(how="all")
    least = table.min(axis=1)
    ratios = table.div(least, axis=0)
    ratios = ratios.mask(table.eq(least, axis=0), 1.0)  # also where the best value is 0
    return ratios.fillna(np.inf)


def performance_profile(ratios: pd.DataFrame, taus: Sequence[float]) -> pd.DataFrame:
    """ρ(τ) per configuration (columns) at each τ (index): the fraction of graphs on which
    its performance ratio is at most τ (Dolan & Moré 2002, eq. 1)."""
    values = ratios.to_numpy()
    within = [(values <= tau).mean(axis=0) for tau in taus]
    return pd.DataFrame(within, index=pd.Index(taus, name="tau"), columns=ratios.columns)


def trace_lines(traces: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """The trace rows to draw: per graph × configuration × series, the first recorded
    repetition (earliest run id, lowest rep) at the configuration's fastest block size on
    the graph (``best``, from :func:`best_block_per_config`), or at the smallest block size
    traced where it has no valid time (a timed-out run's trace is the interesting one).
    Series with a single value (a total such as ``reported_colors``) are no per-round
    curve and are left out. Adds ``config`` (as named in ``best``); ordered by graph,
    series and round. ``traces`` and ``best`` are of one problem (:func:`problem_parts`):
    a trace is matched to a configuration by algorithm and params.
    """
    known = best[["algorithm", "params", "config"]].drop_duplicates()
    t = traces.merge(known, on=["algorithm", "params"], how="left")
    problem = t["problem"].replace("", DEFAULT_PROBLEM) if "problem" in t else None
    t["config"] = t["config"].fillna(config_label(t["algorithm"], t["params"], problem))
    t["bs"] = t["block_size"].fillna(0)
    fastest = best.dropna(subset=["time_ms"])
    fastest = fastest.assign(chosen=fastest["block_size"].fillna(0).astype(float))
    t = t.merge(fastest[["graph", "config", "chosen"]], on=["graph", "config"], how="left")
    t["chosen"] = t["chosen"].fillna(t.groupby(["graph", "config"])["bs"].transform("min"))
    t = t[t["bs"] == t["chosen"]]
    first = t.sort_values(["run_id", "rep"]).groupby(["graph", "config", "series"]).head(1)
    keep = ["run_id", "graph", "config", "series", "rep"]
    t = t.merge(first[keep], on=keep).sort_values(["series", "round"])
    t = t[t.groupby(["graph", "config", "series"])["round"].transform("size") > 1]
    t = in_graph_order(t, list(dict.fromkeys([*best["graph"], *t["graph"]])))
    return t.drop(columns=["bs", "chosen"])


LEVEL_TABLE = ["graph", "label", "colors", "levels_natural", "levels_colored", "trsv_natural_ms",
               "trsv_colored_ms", "trsv_speedup"]  # fmt: skip


def levels_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per graph × group with ``--metrics levels`` figures: colors, the levels of the natural
    and the color-ordered lower-triangular solve, and the solve times (docs/balance-levels.md).
    Empty when no row has them."""
    part = summary.dropna(subset=["levels_natural"])
    return part[LEVEL_TABLE].reset_index(drop=True)


def problem_parts(summary: pd.DataFrame) -> list[str]:
    """The problems the summary holds, in :data:`~gcbench.grammar.PROBLEMS` order."""
    held = set(summary["problem"])
    return [p for p in PROBLEMS if p in held]


def has_distance2(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` holds a problem other than d1 (then tables name each row's)."""
    return bool((frame["problem"] != DEFAULT_PROBLEM).any())


# The serial reference of the distance-2 problems (docs/report.md, "Distance-2 colorings"):
# the greedy on the CPU, which visits the columns in its ``order`` one at a time.
SERIAL_REFERENCE = "greedy"
DISTANCE2_TABLE = ["graph", "problem", "config", "backend", "block_size", "time_ms",
                   "time_ci_low_ms", "time_ci_high_ms", "near_fastest", "flags", "colors",
                   "bound", "bound_kind", "colors_over_bound", "compression", "n", "nets",
                   "recovered", "speedup_serial", "speedup_serial_ci_low",
                   "speedup_serial_ci_high"]  # fmt: skip


def _serial_references(part: pd.DataFrame) -> np.ndarray:
    """For each group of ``part`` (distance-2 groups, the summary's index), the index of its
    serial reference: the fastest :data:`SERIAL_REFERENCE` CPU group with a valid time in the
    same case, of the group's ``order`` where it has one; NaN where there is none."""
    orders = part["params"].map(lambda p: parse_param_string(requested_params(p)).get("order"))
    serial = part[(part["algorithm"] == SERIAL_REFERENCE) & (part["backend"] == "cpu")]
    serial = serial.dropna(subset=["time_ms"])
    out = np.full(len(part), np.nan)
    for i, (graph, problem, order) in enumerate(
        zip(part["graph"], part["problem"], orders, strict=True)
    ):
        pool = serial[(serial["graph"] == graph) & (serial["problem"] == problem)]
        if pd.notna(order):
            pool = pool[orders[pool.index] == order]
        if len(pool):
            out[i] = pool["time_ms"].idxmin()
    return out


def distance2_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per case of a distance-2 problem × configuration, at its fastest block size (as in
    the figures): the median time and its interval, colors, the case's lower bound
    (``bound``, ``bound_kind``: Δ+1 for d2, the largest row count for pd2 and pd2-rows),
    ``colors_over_bound`` (colors ÷ bound, 1 = provably optimal), ``compression`` (n ÷
    colors: the columns per color, how many times fewer products J·S recover a Jacobian
    than J·I; Gebremedhin, Manne & Pothen, SIAM Review 47(4), 2005), ``nets`` (the
    matrix's other dimension), ``recovered`` (every repetition that checked recovered J:
    True, one did not: False, none checked: NA) and ``speedup_serial``: the median time of
    the serial reference (:func:`_serial_references`) over the group's, with its 95 %
    interval (:func:`ratio_ci`; 1–1 for the reference itself). Empty when no row solved a
    distance-2 problem."""
    part = summary[summary["problem"].isin(PATTERN_PROBLEMS)]
    if part.empty:
        return pd.DataFrame(columns=DISTANCE2_TABLE)
    reference = _serial_references(part)
    serial_ms = summary["time_ms"].reindex(reference).to_numpy(dtype=float)
    intervals = _speedup_intervals(part, reference)
    part = part.assign(
        colors_over_bound=part["colors"] / part["bound"],
        compression=part["n"] / part["colors"],
        speedup_serial=serial_ms / part["time_ms"].to_numpy(dtype=float),
        speedup_serial_ci_low=intervals[:, 0],
        speedup_serial_ci_high=intervals[:, 1],
    )
    best = best_block_per_config(part)
    ordered = best.sort_values(["problem", "time_ms", "config"], na_position="last")
    ordered = in_graph_order(ordered, summary["graph"].unique())
    return ordered[DISTANCE2_TABLE]
