"""Downloads of ``ss:`` (SuiteSparse), ``snap:`` (SNAP) and ``dimacs:`` (the DIMACS coloring
instances) graphs into the ``.npz`` cache.

:func:`load_remote` is what :func:`gcbench.graphs.sources.load_graph` calls for those specs: a
cached graph is returned without any network request; otherwise the file is downloaded by gcbench's
own client (:mod:`gcbench.graphs.fetch.http`), checked and extracted safely
(:mod:`gcbench.graphs.fetch.extract`) inside a temporary directory in the cache, read by
:mod:`gcbench.graphs.formats`, cached as ``.npz`` (recording the URL as the graph's source), and the
raw download is deleted. :func:`load_remote_pattern` is the same for the matrix pattern of an
``ss:`` matrix (what :func:`gcbench.graphs.sources.load_pattern` calls), cached as
``.pattern.npz``. :func:`fetch_all` is ``gcbench fetch``; :func:`cached_graphs` is ``gcbench list
graphs`` and ``gcbench cache`` (graph and pattern caches).
"""

from gcbench.graphs.fetch.batch import Fetched, failure_lines, fetch_all
from gcbench.graphs.fetch.listing import CachedGraph, cached_graphs, is_cached
from gcbench.graphs.fetch.load import load_remote, load_remote_pattern
from gcbench.graphs.fetch.remote import is_remote, resolve

__all__ = [
    "CachedGraph",
    "Fetched",
    "cached_graphs",
    "failure_lines",
    "fetch_all",
    "is_cached",
    "is_remote",
    "load_remote",
    "load_remote_pattern",
    "resolve",
]
