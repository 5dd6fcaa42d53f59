"""Nearest-neighbour search at every size: exact where it is affordable, else an index.

:func:`nearest_search` finds each query row's nearest reference row (Euclidean) and says
how it did it:

- ``"exact"``: blocked matrix products (:func:`core.evaluation.attacks.nearest.nearest_distances`),
  quadratic in the rows: chosen by ``"auto"`` while queries x reference rows stay under
  :data:`EXACT_PAIRS` (about 10 s on 2 cores);
- ``"tree"``: scikit-learn's k-d tree, exact and about n log n when the encoded table has
  few columns (at most :data:`TREE_COLUMNS`; beyond that a tree visits most of its
  leaves: 44 s against 1.6 s for the products on 30,000 Adult rows of 110 columns);
- ``"approximate"``: a hierarchical navigable small-world graph (HNSW, faiss-cpu), built
  in about n log n and searched in about log n per query. Its recall is measured, not
  assumed: :data:`RECALL_QUERIES` seeded queries are searched exactly as well, and the
  share whose nearest distance the index found exactly is reported with its interval
  and the mean excess of the distances it found. An approximate search can only find a
  row farther than the nearest one, so a distance it reports is never too small.

A query equal in every column to a reference row is at distance 0 without a search (a
hash of each row, then the rows compared; linear in the rows): the raw table against itself
costs no search, and an index never misses an exact copy. Above the exact size the
reference's repeated rows are searched once (the distances do not change). Every path
measures the distance to the row it found again exactly in float64, so an exact copy is at
distance 0 on every path. Query blocks can run as tasks of the
project's compute backend (:func:`core.runtime.compute.map_tasks`: this process or a
Dask cluster), the reference or its index scattered to each worker once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.evaluation.attacks.nearest import nearest_distances
from core.evaluation.metrics import proportion_interval
from core.runtime import compute
from core.runtime.randomness import RandomState, check_random_state
from core.validation import check_choice, check_matrix, check_positive_int

__all__ = ["NearestSearch", "nearest_search", "choose_search", "exact_matches", "SEARCH_METHODS", "EXACT_PAIRS",
           "TREE_COLUMNS", "RECALL_QUERIES", "HNSW_NEIGHBOURS", "HNSW_BUILD_BREADTH", "HNSW_SEARCH_BREADTH"]

SEARCH_METHODS = ("auto", "exact", "tree", "approximate")
#: Queries x reference rows up to which ``"auto"`` searches exactly by matrix products
#: (2e9 pairs: about 10 s on 2 cores at 110 encoded columns).
EXACT_PAIRS = 2_000_000_000
#: Encoded columns up to which ``"auto"`` uses an exact k-d tree above :data:`EXACT_PAIRS`.
TREE_COLUMNS = 16
#: Queries searched exactly as well to measure an approximate search's recall.
RECALL_QUERIES = 1_000
#: HNSW graph: neighbours per node (faiss ``M``), breadth while building and while searching.
#: Measured on 100,000 Adult-like rows (110 columns): recall 0.99, 5 s to build, 4 s to search.
HNSW_NEIGHBOURS, HNSW_BUILD_BREADTH, HNSW_SEARCH_BREADTH = 32, 80, 64
#: Query rows per task of the search.
_BLOCK = 65_536


@dataclass(frozen=True)
class NearestSearch:
    """The outcome of :func:`nearest_search`.

    Attributes
    ----------
    distances : ndarray of shape (n,)
        Each query's distance to the reference row found (float64, measured exactly).
    method : str
        ``"exact"``, ``"tree"`` or ``"approximate"``.
    recall : float or None
        Approximate search only: share of the checked queries whose nearest distance was
        found exactly (1.0 for the exact methods). The checked queries are drawn from the
        ones the index searched (not the exact copies, found without it).
    recall_interval : tuple of float
        Its 95% interval (Wilson); (1, 1) for the exact methods.
    checked : int
        Queries searched exactly to measure the recall (0 for the exact methods).
    mean_excess : float
        Mean of (found - exact) distance over the checked queries (0 for exact methods).
    copies : int
        Queries equal to a reference row, at distance 0 without a search.
    """

    distances: np.ndarray
    method: str
    recall: float
    recall_interval: tuple[float, float]
    checked: int
    mean_excess: float
    copies: int = 0

    def describe(self) -> str:
        """One sentence for a report."""
        if self.method != "approximate":
            how = "products of blocks" if self.method == "exact" else "a k-d tree"
            return f"exact nearest-neighbour search ({how})"
        lo, hi = self.recall_interval
        copies = (f" ({self.copies:,} queries equal to a reference row were at distance 0 without the index)"
                  if self.copies else "")
        return (f"approximate nearest-neighbour search (HNSW, faiss): recall {self.recall:.3f} "
                f"(95% interval {lo:.3f}-{hi:.3f}) on {self.checked:,} queries checked exactly; "
                f"distances it found are {self.mean_excess:.4f} too large on average, never too small{copies}")


def choose_search(n_queries: int, n_reference: int, n_columns: int) -> str:
    """The method ``"auto"`` picks for these sizes (see the module's description)."""
    if n_queries * n_reference <= EXACT_PAIRS:
        return "exact"
    return "tree" if n_columns <= TREE_COLUMNS else "approximate"


class _Hnsw:
    """A faiss HNSW index that pickles as faiss's own serialisation (for a cluster)."""

    def __init__(self, reference: np.ndarray) -> None:
        import faiss

        self.index = faiss.IndexHNSWFlat(reference.shape[1], HNSW_NEIGHBOURS)
        self.index.hnsw.efConstruction = HNSW_BUILD_BREADTH
        self.index.add(np.ascontiguousarray(reference, dtype=np.float32))
        self.index.hnsw.efSearch = HNSW_SEARCH_BREADTH

    def __getstate__(self) -> dict:
        import faiss

        return {"bytes": faiss.serialize_index(self.index)}

    def __setstate__(self, state: dict) -> None:
        import faiss

        self.index = faiss.deserialize_index(state["bytes"])
        self.index.hnsw.efSearch = HNSW_SEARCH_BREADTH

    def nearest(self, queries: np.ndarray) -> np.ndarray:
        _, found = self.index.search(np.ascontiguousarray(queries, dtype=np.float32), 1)
        return found[:, 0]


class _Tree:
    def __init__(self, reference: np.ndarray) -> None:
        from sklearn.neighbors import KDTree

        self.tree = KDTree(reference)

    def nearest(self, queries: np.ndarray) -> np.ndarray:
        return self.tree.query(queries, k=1, return_distance=False)[:, 0]


def _row_hashes(M: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of ``M`` (equal rows, equal hashes; the converse is checked)."""
    return pd.util.hash_pandas_object(pd.DataFrame(M, copy=False), index=False).to_numpy()


def exact_matches(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """For each query row, the position of a reference row equal to it in every column, else -1.

    Rows are matched by a 64-bit hash and then compared value by value, so a match is
    always an equal row (a hash collision only loses a match, which the search then finds).
    Linear in the rows, plus a sort of the reference's hashes."""
    match = np.full(len(queries), -1, dtype=np.int64)
    if len(queries) == 0 or len(reference) == 0:
        return match
    keys, first = np.unique(_row_hashes(reference), return_index=True)
    hq = _row_hashes(queries)
    at = np.minimum(np.searchsorted(keys, hq), len(keys) - 1)
    hit = np.flatnonzero(keys[at] == hq)
    if len(hit):
        rows = first[at[hit]]
        same = np.all(queries[hit] == reference[rows], axis=1)
        match[hit[same]] = rows[same]
    return match


def _distinct_rows(B: np.ndarray) -> np.ndarray:
    """The distinct rows of ``B``, in their first order. Releases repeat rows (a cluster's
    centre, a microaggregation group, an exact copy): measured on 75,000 records, an HNSW
    graph over a release with many repeated rows found the nearest row for half the queries
    only; over its distinct rows the distances are the same and the graph is sound."""
    rows = np.ascontiguousarray(B).view(np.dtype((np.void, B.dtype.itemsize * B.shape[1]))).ravel()
    _, first = np.unique(rows, return_index=True)
    return B if len(first) == len(B) else B[np.sort(first)]


def _search_block(queries: np.ndarray, reference: np.ndarray, index: Any) -> np.ndarray:
    """One block of queries: the exact products, or the index's nearest row measured exactly."""
    if index is None:
        return nearest_distances(queries, reference)
    found = index.nearest(queries)
    diff = queries - reference[found]
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def nearest_search(queries: Any, reference: Any, *, method: str = "auto", scheduler: str | None = None,
                   block_rows: int = _BLOCK, random_state: RandomState = None) -> NearestSearch:
    """Each query row's distance to its nearest reference row, exactly or by an index.

    Parameters
    ----------
    queries : array_like of shape (n, p)
    reference : array_like of shape (m, p)
        Finite numbers (encode tables with :func:`~core.evaluation.attacks.nearest.encode_for_distance`).
    method : {"auto", "exact", "tree", "approximate"}
        See the module's description; ``"auto"`` is :func:`choose_search`.
    scheduler : str, optional
        Where the query blocks run (:func:`core.runtime.compute.resolve_scheduler`).
    block_rows : int
        Query rows per task.
    random_state : int, Generator or None
        Draws the queries that measure an approximate search's recall (no other effect:
        the index itself is deterministic).

    Returns
    -------
    NearestSearch
    """
    A = check_matrix(queries, name="queries", min_rows=0, min_columns=0)
    B = check_matrix(reference, name="reference", min_rows=1, min_columns=0)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"queries and reference must have the same columns, got {A.shape[1]} and {B.shape[1]}.")
    method = check_choice(method, SEARCH_METHODS, name="method")
    block_rows = check_positive_int(block_rows, name="block_rows")
    if method != "exact":
        B = _distinct_rows(B)  # the same distances; a graph index degrades on repeated rows
    todo = np.flatnonzero(exact_matches(A, B) < 0)  # an exact copy is at 0: no search
    copies = len(A) - len(todo)
    Q = A if copies == 0 else A[todo]
    if method == "auto" or len(Q) == 0:
        method = choose_search(len(Q), len(B), A.shape[1])
    index = None if method == "exact" else (_Tree(B) if method == "tree" else _Hnsw(B))
    blocks = [Q[i:i + block_rows] for i in range(0, len(Q), block_rows)]
    parts = compute.map_tasks(_search_block, blocks, shared=(B, index), scheduler=scheduler,
                              label="block")
    found = np.concatenate(parts) if parts else np.empty(0)
    distances = found if copies == 0 else np.zeros(len(A))
    if copies:
        distances[todo] = found
    if method != "approximate":
        return NearestSearch(distances, method, 1.0, (1.0, 1.0), 0, 0.0, copies)
    return _with_recall(distances, found, Q, B, random_state, copies)


def _with_recall(distances: np.ndarray, found: np.ndarray, Q: np.ndarray, B: np.ndarray,
                 random_state: RandomState, copies: int) -> NearestSearch:
    """The index's recall on a seeded sample of the queries it searched (``Q``, ``found``)."""
    rng = check_random_state(random_state)
    checked = np.sort(rng.choice(len(Q), size=min(RECALL_QUERIES, len(Q)), replace=False))
    exact = nearest_distances(Q[checked], B)
    got = found[checked]
    hits = int(np.sum(got <= exact + 1e-12 * (1.0 + exact)))
    lo, hi = proportion_interval(hits, len(checked))
    return NearestSearch(distances, "approximate", hits / max(1, len(checked)), (float(lo), float(hi)),
                         int(len(checked)), float(np.mean(got - exact)) if len(checked) else 0.0, copies)
