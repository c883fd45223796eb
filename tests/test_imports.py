"""gcbench's import graph has no cycle (issue 15): the arrows point one way, function-local
imports included, so no module relies on being imported inside a function to load at all;
and it is layered (issue 34; docs/architecture.md, "Layers"): shared leaf modules ← graphs ←
algorithms ← bench ← report ← api/cli, no import running up, and ``algorithms.cpu`` never
imports ``algorithms.gpu``.

The graph is read from the source with ``ast``, never by importing it. Its edges:

- every ``import x`` / ``from x import y`` anywhere in a module (module level, in functions,
  in ``try`` blocks), except under ``if TYPE_CHECKING:`` (only a type checker runs those);
- ``from package import name`` points at ``package.name`` when that is a module, else at
  ``package``; relative imports are resolved;
- importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` and ``a``: an edge to each such
  package that does not already contain the importer;
- :data:`DYNAMIC`: imports made by name at run time (the algorithm registry loads every
  module below ``gcbench.algorithms``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DYNAMIC = {"gcbench.algorithms": "gcbench.algorithms."}  # importer -> prefix it loads

Edges = dict[str, dict[str, str]]  # module -> imported module -> "path:line"


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name (packages by their own)."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes under ``if TYPE_CHECKING:`` blocks."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                hidden.update(id(n) for n in ast.walk(child))
    return hidden


def _imported(node: ast.AST, module: str, is_package: bool, known: set[str]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            parts = module.split(".")[: None if is_package else -1]
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            yield sub if sub in known else base


def import_graph(root: Path, package: str) -> Edges:
    """The edges of the module docstring between the modules of ``package``."""
    found = modules(root, package)
    known = set(found)
    edges: Edges = {name: {} for name in found}
    for name, path in found.items():
        tree = ast.parse(path.read_text(), str(path))
        hidden = _type_checking_nodes(tree)
        relative = path.relative_to(root)  # once per file: per node it was most of the walk
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in hidden:
                continue  # _imported yields nothing for other nodes
            where = f"{relative}:{getattr(node, 'lineno', 0)}"
            for target in _imported(node, name, path.name == "__init__.py", known):
                for hit in _with_packages(target, name, known):
                    edges[name].setdefault(hit, where)
    for importer, prefix in DYNAMIC.items():
        if importer in edges:
            for name in known:
                if name.startswith(prefix):
                    edges[importer].setdefault(name, f"{found[importer].relative_to(root)}")
    return edges


def _with_packages(target: str, importer: str, known: set[str]) -> Iterator[str]:
    """``target`` and the packages whose ``__init__`` importing it runs, minus the importer's
    own packages (those are being imported already, unless named themselves)."""
    parts = target.split(".")
    for end in range(1, len(parts) + 1):
        name = ".".join(parts[:end])
        implicit = end < len(parts) and importer.startswith(name + ".")
        if name in known and name != importer and not implicit:
            yield name


def cycles(edges: Edges) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(edges: Edges, component: list[str]) -> str:
    inside = set(component)
    return "\n".join(
        f"  {a} -> {b} ({where})"
        for a in component
        for b, where in sorted(edges[a].items())
        if b in inside
    )


# The layers, lowest first: a module may import its own layer and the ones below it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("shared", ("gcbench._version", "gcbench.errors", "gcbench.grammar", "gcbench.memory",
                "gcbench.outputs", "gcbench.resources", "gcbench.stats")),
    ("graphs", ("gcbench.graphs",)),
    ("algorithms", ("gcbench.algorithms",)),
    ("bench", ("gcbench.bench",)),
    ("report", ("gcbench.report",)),
    ("top", ("gcbench", "gcbench.__main__", "gcbench.api", "gcbench.cli")),
)  # fmt: skip
APART = (("gcbench.algorithms.cpu", "gcbench.algorithms.gpu"),)  # (importer, never imported)


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module``'s layer (its longest matching prefix; the
    package ``gcbench`` itself only by name), None for a module no layer names."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = module == prefix or (prefix != "gcbench" and module.startswith(prefix + "."))
            if inside and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_violations(edges: Edges) -> list[str]:
    """Every import that runs up a layer or between packages kept apart, as a line."""
    found = []
    for importer, targets in sorted(edges.items()):
        for target, where in sorted(targets.items()):
            low, high = layer_of(importer), layer_of(target)
            if low is not None and high is not None and high > low:
                found.append(f"{importer} ({LAYERS[low][0]}) imports {target} "
                             f"({LAYERS[high][0]}) at {where}")  # fmt: skip
            for source, forbidden in APART:
                if _within(importer, source) and _within(target, forbidden):
                    found.append(f"{importer} imports {target} at {where}")
    return found


@pytest.fixture(scope="module")
def gcbench_edges() -> Edges:
    """gcbench's import graph, read once for the tests below (none of them changes it)."""
    return import_graph(ROOT, "gcbench")


def test_every_module_has_a_layer(gcbench_edges):
    loose = [name for name in gcbench_edges if layer_of(name) is None]
    assert not loose, (
        f"modules outside LAYERS (add them there and to docs/architecture.md): {loose}"
    )


def test_no_import_runs_up_a_layer(gcbench_edges):
    found = layer_violations(gcbench_edges)
    assert not found, 'imports against docs/architecture.md, "Layers":\n' + "\n".join(found)


def test_the_layer_rule_catches_an_upward_and_a_cpu_to_gpu_import():
    edges: Edges = {
        "gcbench.graphs.graph": {"gcbench.bench.results": "a.py:1", "gcbench.errors": "a.py:2"},
        "gcbench.algorithms.cpu.greedy": {"gcbench.algorithms.gpu.runtime": "b.py:3"},
        "gcbench.report.tables": {"gcbench.bench.results": "c.py:4"},  # downward: fine
        "gcbench.errors": {"gcbench": "d.py:5"},  # the top package runs api and cli
    }
    found = layer_violations(edges)
    assert [line.split(" at ")[0] for line in found] == [
        "gcbench.algorithms.cpu.greedy imports gcbench.algorithms.gpu.runtime",
        "gcbench.errors (shared) imports gcbench (top)",
        "gcbench.graphs.graph (graphs) imports gcbench.bench.results (bench)",
    ]
    assert layer_of("gcbench.graphs.fetch.http") == 1 and layer_of("gcbench") == 5
    assert layer_of("gcbench.errors") == 0 and layer_of("gcbenchx.y") is None


def test_gcbench_has_no_import_cycle(gcbench_edges):
    edges = gcbench_edges
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n\n".join(describe(edges, c) for c in found)


def test_the_walk_sees_function_local_and_package_imports(gcbench_edges):
    edges = gcbench_edges
    assert (
        "gcbench.graphs.fetch" in edges["gcbench.graphs.sources"]
    )  # function-local, in load_graph
    assert (
        "gcbench.graphs.fetch" in edges["gcbench.bench.suite"]
    )  # through gcbench.graphs.fetch.remote
    assert "gcbench.algorithms.cpu.greedy" in edges["gcbench.algorithms"]  # the registry
    assert "gcbench.report" not in edges["gcbench.report.tables"]  # TYPE_CHECKING only
    assert (
        "gcbench.graphs.fetch" not in edges["gcbench.graphs.fetch.batch"]
    )  # its own package, implied


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        (
            {
                "__init__.py": "",
                "a.py": "def f():\n    from pkg import b\n",
                "b.py": "from pkg.c import x\n",
                "c.py": "import pkg.a\nx = 1\n",
            },
            ["pkg.a", "pkg.b", "pkg.c"],
        ),
        (  # through a package's __init__, and with a relative import
            {
                "__init__.py": "",
                "top.py": "from pkg.sub.leaf import y\n",
                "sub/__init__.py": "from .other import z\n",
                "sub/leaf.py": "y = 1\n",
                "sub/other.py": "from pkg import top\nz = 1\n",
            },
            ["pkg.sub", "pkg.sub.other", "pkg.top"],
        ),
        (  # a module that takes a name from its own package's __init__, which imports it
            {
                "__init__.py": "",
                "sub/__init__.py": "X = 1\ndef f():\n    from pkg.sub import leaf\n",
                "sub/leaf.py": "from pkg.sub import X\n",
            },
            ["pkg.sub", "pkg.sub.leaf"],
        ),
    ],
)
def test_a_cycle_is_found(tmp_path, files, cycle):
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert cycles(import_graph(tmp_path, "pkg")) == [cycle]


def test_type_checking_imports_are_not_edges(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from pkg import b\n")
    (tmp_path / "pkg" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    assert cycles(import_graph(tmp_path, "pkg")) == []
