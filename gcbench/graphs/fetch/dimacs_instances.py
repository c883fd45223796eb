"""The DIMACS graph-coloring instances (``dimacs:NAME``): the catalogue of what Michael Trick's
instance page publishes (https://mat.tepper.cmu.edu/COLOR/instances.html, as of 2026-11).

For each instance: its file on the server (``<base>/<file>``, base from
``GCBENCH_DIMACS_URL``; :mod:`gcbench.graphs.fetch.remote`), its vertices and edges as the page
lists them, and its chromatic number χ where the page states one (None where it says "?").
The page's edge counts count each edge twice for several instances (DSJC125.1: 1472 listed,
736 edges; queen9_9 and the larger queens), so they are kept for reference only: the graph
read from the file is what counts (docs/graphs.md, "DIMACS coloring instances")."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from gcbench.errors import SpecError, shown

PAGE = "https://mat.tepper.cmu.edu/COLOR/instances.html"


@dataclass(frozen=True)
class Instance:
    """One instance of the page: ``file`` on the server, ``n`` and ``m`` as the page lists them
    (``m`` may count each edge twice), ``chi`` the published χ (None: not known)."""

    name: str
    file: str
    n: int
    m: int
    chi: int | None

    @property
    def spec(self) -> str:
        return f"dimacs:{self.name}"

    @property
    def binary(self) -> bool:
        """Whether the file is in the DIMACS binary format (``.col.b``)."""
        return self.file.endswith(".col.b")


# (name, vertices, edges, χ) in the page's order; None where the page gives "?".
_BINARY: tuple[tuple[str, int, int, int | None], ...] = (
    ("DSJC1000.1", 1000, 99258, None),
    ("DSJC1000.5", 1000, 499652, None),
    ("DSJC1000.9", 1000, 898898, None),
    ("DSJC125.1", 125, 1472, None),
    ("DSJC125.5", 125, 7782, None),
    ("DSJC125.9", 125, 13922, None),
    ("DSJC250.1", 250, 6436, None),
    ("DSJC250.5", 250, 31366, None),
    ("DSJC250.9", 250, 55794, None),
    ("DSJC500.1", 500, 24916, None),
    ("DSJC500.5", 500, 125249, None),
    ("DSJC500.9", 500, 224874, None),
    ("DSJR500.1", 500, 7110, None),
    ("DSJR500.1c", 500, 242550, None),
    ("DSJR500.5", 500, 117724, None),
    ("flat1000_50_0", 1000, 245000, 50),
    ("flat1000_60_0", 1000, 245830, 60),
    ("flat1000_76_0", 1000, 246708, 76),
    ("flat300_20_0", 300, 21375, 20),
    ("flat300_26_0", 300, 21633, 26),
    ("flat300_28_0", 300, 21695, 28),
)
_ASCII: tuple[tuple[str, int, int, int | None], ...] = (
    ("fpsol2.i.1", 496, 11654, 65),
    ("fpsol2.i.2", 451, 8691, 30),
    ("fpsol2.i.3", 425, 8688, 30),
    ("inithx.i.1", 864, 18707, 54),
    ("inithx.i.2", 645, 13979, 31),
    ("inithx.i.3", 621, 13969, 31),
    ("latin_square_10", 900, 307350, None),
    ("le450_15a", 450, 8168, 15),
    ("le450_15b", 450, 8169, 15),
    ("le450_15c", 450, 16680, 15),
    ("le450_15d", 450, 16750, 15),
    ("le450_25a", 450, 8260, 25),
    ("le450_25b", 450, 8263, 25),
    ("le450_25c", 450, 17343, 25),
    ("le450_25d", 450, 17425, 25),
    ("le450_5a", 450, 5714, 5),
    ("le450_5b", 450, 5734, 5),
    ("le450_5c", 450, 9803, 5),
    ("le450_5d", 450, 9757, 5),
    ("mulsol.i.1", 197, 3925, 49),
    ("mulsol.i.2", 188, 3885, 31),
    ("mulsol.i.3", 184, 3916, 31),
    ("mulsol.i.4", 185, 3946, 31),
    ("mulsol.i.5", 186, 3973, 31),
    ("school1", 385, 19095, None),
    ("school1_nsh", 352, 14612, None),
    ("zeroin.i.1", 211, 4100, 49),
    ("zeroin.i.2", 211, 3541, 30),
    ("zeroin.i.3", 206, 3540, 30),
    ("anna", 138, 493, 11),
    ("david", 87, 406, 11),
    ("homer", 561, 1629, 13),
    ("huck", 74, 301, 11),
    ("jean", 80, 254, 10),
    ("games120", 120, 638, 9),
    ("miles1000", 128, 3216, 42),
    ("miles1500", 128, 5198, 73),
    ("miles250", 128, 387, 8),
    ("miles500", 128, 1170, 20),
    ("miles750", 128, 2113, 31),
    ("queen10_10", 100, 2940, None),
    ("queen11_11", 121, 3960, 11),
    ("queen12_12", 144, 5192, None),
    ("queen13_13", 169, 6656, 13),
    ("queen14_14", 196, 8372, None),
    ("queen15_15", 225, 10360, None),
    ("queen16_16", 256, 12640, None),
    ("queen5_5", 25, 160, 5),
    ("queen6_6", 36, 290, 7),
    ("queen7_7", 49, 476, 7),
    ("queen8_12", 96, 1368, 12),
    ("queen8_8", 64, 728, 9),
    ("queen9_9", 81, 2112, 10),
    ("myciel3", 11, 20, 4),
    ("myciel4", 23, 71, 5),
    ("myciel5", 47, 236, 6),
    ("myciel6", 95, 755, 7),
    ("myciel7", 191, 2360, 8),
)

INSTANCES: dict[str, Instance] = {
    name: Instance(name, name + suffix, n, m, chi)
    for rows, suffix in ((_BINARY, ".col.b"), (_ASCII, ".col"))
    for name, n, m, chi in rows
}


def instance(name: str) -> Instance:
    """The catalogue entry ``name`` (case-sensitive, as on the page); an unknown name is a
    SpecError naming the closest entries."""
    found = INSTANCES.get(name)
    if found is not None:
        return found
    raise SpecError(f"{shown('dimacs:' + name)} is not a DIMACS coloring instance; {_hint(name)}")


def _hint(name: str) -> str:
    """``did you mean ...?`` with the closest names (letter case ignored), else where the
    instances are listed."""
    by_lower: dict[str, str] = {known.lower(): known for known in INSTANCES}
    close = difflib.get_close_matches(name.lower(), by_lower, n=3, cutoff=0.6)
    if close:
        return "did you mean " + ", ".join(f"dimacs:{by_lower[c]}" for c in close) + "?"
    return f"the instances are listed at {PAGE}"
