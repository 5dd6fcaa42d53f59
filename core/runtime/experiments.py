"""Sweeps over a privacy parameter with repetitions, summarised as mean and spread.

Each repetition gets its own seed drawn from one generator, up front, so a sweep is
reproducible from one ``random_state``, repetitions are independent, and the numbers are
the same wherever the runs execute. Runs go through :func:`core.runtime.compute.map_tasks`: in
this process by default, on a Dask cluster when ``scheduler`` (or ``PUX_SCHEDULER``)
names one, or on ``n_jobs`` local worker processes. :func:`map_seeds` maps one function
over a list of seeds in chunks (one task per chunk, so the per-task overhead is paid once
per chunk), with progress and a stop event; the privacy auditor (:mod:`core.audit.auditor`) runs
through it.
:class:`Reproduction` is the one shape of a paper reproduction's result (``pux reproduce``).
"""
from __future__ import annotations

import itertools
import numbers
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

import pandas as pd

from core.runtime import compute
from core.validation import check_positive_int
from core.runtime.progress import Stop, watch
from core.runtime.randomness import RandomState, check_random_state, draw_seeds

__all__ = ["Reproduction", "map_seeds", "sweep", "summarize"]


def _call(job: tuple[dict, int, int], fn: Callable[..., Any]) -> dict:
    params, _, seed = job
    out = fn(**params, random_state=seed)
    if isinstance(out, Mapping):
        return dict(out)
    return {"value": float(out)}


def sweep(
    fn: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]],
    *,
    repetitions: int = 10,
    random_state: RandomState = None,
    n_jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[float, str], None] | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Run ``fn(**point, random_state=seed)`` for every grid point and repetition.

    Parameters
    ----------
    fn : callable
        Returns a number or a mapping of named numbers (for example
        ``{"accuracy": 0.8, "f1": 0.7}``) for one run.
    grid : mapping of str to sequence
        Parameter values; the sweep runs their Cartesian product.
    repetitions : int
        Independent runs per point (different noise draws; privacy results are random
        variables, so one run says little).
    random_state : int, Generator or None
        Seeds every run.
    n_jobs : int
        Local worker processes when no scheduler is configured (1: this process).
    scheduler : str, optional
        Where the runs execute (:func:`core.runtime.compute.resolve_scheduler`; default
        ``$PUX_SCHEDULER``). ``fn`` (with the data it closes over) is sent to each worker
        once, not once per run.
    progress : callable(fraction, message), optional
        Called after each run; raising from it stops the sweep.
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    DataFrame
        One row per run: the parameters, ``repetition``, ``seed`` and the returned values.
    """
    progress = watch(progress, stop)
    reps = check_positive_int(repetitions, name="repetitions")
    rng = check_random_state(random_state)
    keys = list(grid)
    points = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    seeds = draw_seeds(rng, (len(points), reps))
    jobs = [(p, r, int(seeds[i, r])) for i, p in enumerate(points) for r in range(reps)]
    target = compute.scheduler_for(scheduler, n_jobs=_check_n_jobs(n_jobs))
    results = compute.map_tasks(_call, jobs, shared=(fn,), scheduler=target, progress=progress, label="run")
    rows = [{**p, "repetition": r, "seed": s, **res} for (p, r, s), res in zip(jobs, results)]
    return pd.DataFrame(rows)


def _check_n_jobs(n_jobs: Any) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be an integer, got {type(n_jobs).__name__}.")
    if n_jobs == 0:
        raise ValueError("n_jobs must be 1 or more (or negative to count back from all cores), got 0.")
    return int(n_jobs)


def _run_chunk(part: Sequence[Any], fn: Callable[[Any], Any]) -> list:
    return [fn(s) for s in part]


def map_seeds(
    fn: Callable[[Any], Any],
    seeds: Sequence[Any],
    *,
    chunk: int = 50,
    n_jobs: int = 1,
    scheduler: str | None = None,
    progress: Callable[[float, str], None] | None = None,
    stop: threading.Event | None = None,
) -> list:
    """``[fn(s) for s in seeds]``, computed in chunks, in order, optionally in parallel.

    Parameters
    ----------
    fn : callable
        Called once per element of ``seeds``. Off this process it is pickled with
        cloudpickle (lambdas and closures too) and sent to each worker once.
    seeds : sequence
        Each element is passed to ``fn`` as it is: an int seed, or a tuple that carries one
        with what ``fn`` needs to know (for example which dataset to run on).
    chunk : int
        Elements per task. A task's overhead (a round trip to a worker) is paid once per
        ``chunk`` calls.
    n_jobs : int
        Local worker processes when no scheduler is configured (negative counts back from
        all cores; 1 runs in this process).
    scheduler : str, optional
        A Dask scheduler (:func:`core.runtime.compute.resolve_scheduler`; default
        ``$PUX_SCHEDULER``), which wins over ``n_jobs``.
    progress : callable(fraction, message), optional
        Called after every chunk, with the share of ``seeds`` done.
    stop : threading.Event, optional
        Checked after every chunk: once set, the chunks not finished are cancelled and the
        results of every finished chunk are returned (on a cluster chunks finish in any
        order: keeping only those before the first unfinished one could keep none).

    Returns
    -------
    list
        ``fn(s)`` for ``seeds``, in the order of ``seeds``: all of them unless ``stop`` was
        set, then those of the finished chunks (in this process, a prefix of ``seeds``).
    """
    size = check_positive_int(chunk, name="chunk")
    target = compute.scheduler_for(scheduler, n_jobs=_check_n_jobs(n_jobs))
    seeds = list(seeds)
    total = len(seeds)
    parts = [seeds[i:i + size] for i in range(0, total, size)]
    finished: dict[int, list] = {}

    class _Stopped(Exception):
        pass

    def keep(index: int, result: list) -> None:
        finished[index] = result

    def told(fraction: float, message: str) -> None:
        if progress is not None:
            done = min(total, round(fraction * total))
            progress(fraction, f"{done} of {total} runs done")
        if stop is not None and stop.is_set():
            raise _Stopped

    if stop is not None and stop.is_set():
        return []
    try:
        out = compute.map_tasks(_run_chunk, parts, shared=(fn,), scheduler=target, progress=told,
                                weights=[len(p) for p in parts], label="chunk", on_result=keep)
    except _Stopped:
        out = [finished[i] for i in sorted(finished)]  # each chunk's seeds are independent draws
    return [value for part in out for value in part]


def summarize(runs: pd.DataFrame, by: Sequence[str] | str, values: Sequence[str] | str) -> pd.DataFrame:
    """Mean, standard deviation and count of ``values`` per group of ``by``.

    Columns come out as ``<value>_mean``, ``<value>_std``, ``<value>_n``.
    """
    by = [by] if isinstance(by, str) else list(by)
    values = [values] if isinstance(values, str) else list(values)
    agg = runs.groupby(by, sort=True)[values].agg(["mean", "std", "count"])
    agg.columns = [f"{v}_{'n' if s == 'count' else s}" for v, s in agg.columns]
    return agg.reset_index()


#: Keys of :meth:`Reproduction.to_dict` that ``setup`` and ``diagnostics`` cannot use.
_REPRODUCTION_KEYS = ("name", "seconds", "parameters", "seeds", "repetitions", "summary", "paper", "notes")


def _bools(tree: Any, path: tuple[str, ...] = ()) -> dict[str, bool]:
    """Every bool reached through nested mappings of ``tree``, named by its keys joined by ': '."""
    found: dict[str, bool] = {}
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            here = (*path, str(key))
            if isinstance(value, (bool, np.bool_)):
                found[": ".join(here)] = bool(value)
            else:
                found.update(_bools(value, here))
    return found


@dataclass(frozen=True)
class Reproduction:
    """The result of one reproduction of a paper's figure or table (``pux reproduce NAME``).

    Every function of a ``REPRODUCTIONS`` registry (``core/<paper>/reproduce.py``) returns
    one; :meth:`to_dict` is the JSON that ``pux reproduce`` writes.

    Parameters
    ----------
    name : str
        The registered name, for example ``"cdp-fig4"``.
    parameters : dict
        The settings of the run (grids, repetitions, model settings, ``quick``).
    seeds : dict or list
        The seed of the whole run and the child seeds drawn from it (enough to re-run any
        repetition).
    runs : list of dict or DataFrame
        Every repetition, one record per run (a DataFrame is stored as its records);
        written as ``"repetitions"``.
    summary : dict or list
        Our figures: means and spreads over the runs, and the comparisons the reproduction
        makes (see ``checks``).
    paper : dict, list or str
        The paper's figures (or its claims in words, where it prints no numbers), beside ours.
    notes : list of str
        Where and why the setting differs from the paper's.
    setup : dict
        What the reproduction established before its runs, written after ``"seeds"`` (for
        example ``"detection"``: the implicit attributes found). Empty for most.
    diagnostics : dict
        How the runs went, beside their results, written after ``"repetitions"`` (for
        example ``"history_tail"``: the synthesizer's last training iterations).
    seconds : float, optional
        Wall time of the whole reproduction, set by the CLI; written after ``"name"``.

    Attributes
    ----------
    checks : dict of str to bool
        The comparisons the reproduction computes (for example whether the proposed scheme
        is at least as accurate as the group scheme): every bool in ``summary``, named by its
        keys joined by ": " (``"checks: supplier/paper: proposed_ge_group"``). They are
        written where they lie in ``summary``; this is their index, so the JSON and the typed
        result cannot disagree.
    """

    name: str
    parameters: dict
    seeds: Any
    runs: Any
    summary: Any
    paper: Any
    notes: list = field(default_factory=list)
    setup: dict = field(default_factory=dict)
    diagnostics: dict = field(default_factory=dict)
    seconds: float | None = None
    checks: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty str, got {self.name!r}.")
        if isinstance(self.runs, pd.DataFrame):
            object.__setattr__(self, "runs", self.runs.to_dict(orient="records"))
        clash = [k for k in (*self.setup, *self.diagnostics) if k in _REPRODUCTION_KEYS]
        if clash or set(self.setup) & set(self.diagnostics):
            raise ValueError(f"setup and diagnostics must not repeat a key of the result, got {clash}.")
        object.__setattr__(self, "checks", _bools(self.summary))

    def runs_frame(self) -> pd.DataFrame:
        """The runs as a DataFrame (one row per run)."""
        return pd.DataFrame(self.runs)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``pux reproduce`` writes, keys in this order: name, seconds (when
        set), parameters, seeds, the ``setup`` keys, repetitions, the ``diagnostics`` keys,
        summary, paper, notes. Values are the stored objects (not copies); numpy and pandas
        values are turned into JSON by the CLI's encoder."""
        out: dict[str, Any] = {"name": self.name}
        if self.seconds is not None:
            out["seconds"] = self.seconds
        out.update(parameters=self.parameters, seeds=self.seeds, **self.setup)
        out["repetitions"] = self.runs
        out.update(self.diagnostics)
        out.update(summary=self.summary, paper=self.paper, notes=self.notes)
        return out
