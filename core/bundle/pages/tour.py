"""The Tour in a bundle: every story's measurements (:data:`core.papers.stories.STORIES`) as the
Tour page shows them, rebuilt with the same core calls and seed.

The Tour runs each story on the built-in samples (paper 000 on the supplier sample, the others
and the comparison on the census sample) with :data:`dashboard.tour.cached.TOUR_SEED` and the
stories' own defaults; so does a bundle of it, whatever the page's data. Its config names the
census sample (the one a rerun loads and checks); its numbers are, per story, every number the
Tour's steps draw or say: each chart's data, the references it is read against (the constant
guess, the non-private model, the raw table, a random release, ordinary DP's sensitivity 1),
the paper's claim checked on them, the guarantees and each audit's verdict. They are display
measurements of seeded runs, not releases: the Tour releases no table.
"""
from __future__ import annotations

import inspect
from dataclasses import asdict
from typing import Any, Mapping

import pandas as pd

from core.audit.bounds import MIN_RUNS
from core.audit.result import AuditResult
from core.bundle.pages import BundleRelease, plain, records
from core.bundle.pages.correlations import check_known
from core.data import Dataset, load_sample
from core.papers.stories import STORIES
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.validation import check_choice, check_epsilon, check_epsilons, check_positive_int

__all__ = ["TITLE", "DATASET", "STORY_KEYS", "SAMPLES", "DEFAULTS", "check_settings", "numbers", "releases",
           "describe", "story_defaults", "run_story", "story_numbers", "tour_numbers", "tour_dataset",
           "tour_config"]

TITLE = "Tour"
#: The dataset a Tour bundle names: the census sample (paper 000's story loads the supplier sample itself).
DATASET = "census"
#: The stories, in the Tour's order.
STORY_KEYS: tuple[str, ...] = tuple(STORIES)
#: The built-in sample each story runs on.
SAMPLES = {"cdp": "supplier", "imposter": "census", "sskm": "census", "compare": "census"}
#: A story's arguments that are not settings (the seed, the callbacks).
_RUNTIME = ("random_state", "progress", "stop")
#: The sensitivity of a count on independent records: what CS and GS are read against.
INDEPENDENT_COUNT = 1.0


def _json_value(value: Any) -> Any:
    """Tuples as lists, all the way down (a story's default as a setting)."""
    return [_json_value(v) for v in value] if isinstance(value, (tuple, list)) else value


def story_defaults(key: str) -> dict[str, Any]:
    """The story's own defaults (its keyword arguments but the seed and the callbacks), as JSON
    values: what the Tour page runs it with."""
    check_choice(key, STORY_KEYS, name="story", kind=str)
    params = inspect.signature(STORIES[key][0]).parameters.values()
    return {p.name: _json_value(p.default) for p in params if p.kind is p.KEYWORD_ONLY and p.name not in _RUNTIME}


#: The page's defaults: every story, each with its own defaults.
DEFAULTS: dict[str, Any] = {"stories": list(STORY_KEYS), **{key: story_defaults(key) for key in STORY_KEYS}}


def _check_grids(value: Any, *, name: str) -> list[list[int]]:
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"{name} must be a non-empty list of [rows, cols] pairs, got {value!r}.")
    grids = []
    for grid in value:
        if not isinstance(grid, (list, tuple)) or len(grid) != 2:
            raise TypeError(f"each entry of {name} must be a [rows, cols] pair, got {grid!r}.")
        grids.append([check_positive_int(g, name=f"a dimension of {name}", minimum=2) for g in grid])
    return grids


def _check_option(key: str, name: str, value: Any, default: Any) -> Any:
    """One story setting: budgets above 0, grids of [rows, cols], run counts of at least
    :data:`MIN_RUNS` (an audit's floor), other counts of 1 or more, names as strings."""
    where = f"{key}.{name}"
    if name.endswith("epsilons"):
        return list(check_epsilons(value, name=where))
    if name.endswith("epsilon"):
        return check_epsilon(value, name=where)
    if name == "grids":
        return _check_grids(value, name=where)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise TypeError(f"{where} must be a string, got {type(value).__name__}.")
        return value
    if isinstance(default, int) and not isinstance(default, bool):
        return check_positive_int(value, name=where, minimum=MIN_RUNS if name.endswith("runs") else 1)
    raise TypeError(f"{where} is a setting the Tour's bundle does not know how to check.")


def _check_stories(value: Any) -> list[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"stories must be a list of story names, got {type(value).__name__}.")
    chosen = {check_choice(v, STORY_KEYS, name="story", kind=str) for v in value}
    if not chosen:
        raise ValueError(f"stories must name at least one of {list(STORY_KEYS)}.")
    return [k for k in STORY_KEYS if k in chosen]  # the Tour's order, each once


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The Tour's settings with its defaults filled (:data:`DEFAULTS`).

    ``stories`` (which stories the bundle holds, in the Tour's order; default all) and, per
    story (``cdp``, ``imposter``, ``sskm``, ``compare``), its keyword arguments
    (:data:`core.papers.stories.STORIES`): a missing one takes the story's default, which is what
    the page runs. More runs or repetitions give tighter audits and curves, and take longer.
    """
    out = check_known(settings, DEFAULTS)
    out["stories"] = _check_stories(out["stories"])
    for key in STORY_KEYS:
        defaults = story_defaults(key)
        options = check_known(out[key], defaults)
        out[key] = {name: _check_option(key, name, options[name], defaults[name]) for name in defaults}
    return out


def _call_value(value: Any) -> Any:
    return tuple(_call_value(v) for v in value) if isinstance(value, list) else value


def run_story(key: str, *, seed: int, options: Mapping[str, Any], progress: Progress | None = None,
              stop: Stop | None = None) -> Any:
    """The story ``key`` run as the Tour runs it: its function with ``random_state=seed`` and
    ``options`` (lists as the tuples it takes)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    fn, _ = STORIES[check_choice(key, STORY_KEYS, name="story", kind=str)]
    return fn(random_state=int(seed), progress=progress, **{k: _call_value(v) for k, v in options.items()})


# ----------------------------------------------------------------------------- JSON of a story
def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per row; wall times (``*seconds``) left out: they differ between runs."""
    frame = frame.drop(columns=[c for c in frame.columns if str(c).endswith("seconds")])
    return records(frame)


def _audit(result: AuditResult) -> dict[str, Any]:
    """An audit's measurements and verdict, without its wall time."""
    out = {k: plain(v) for k, v in asdict(result).items() if k != "seconds"}
    return {**out, "verdict": result.verdict}


def _cdp(s: Any) -> dict[str, Any]:
    return {
        "training records": int(s.n_train),
        "sensitivity": {**plain(s.sensitivity), "independent records (ordinary DP)": INDEPENDENT_COUNT},
        "fig4 curve": _records(s.curve),
        "references": [plain(asdict(r)) for r in s.references],
        "reference notes": list(s.reference_notes),
        "claim": s.claim.to_dict(),
        "accuracy at epsilon 5, Proposed, by training settings": plain(s.paper_preset),
        "audit epsilon": float(s.audit_epsilon),
        "audit": _audit(s.audit),
        "guarantee": s.guarantee,
    }


def _table1(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Table 1 (columns setting, task, metric) as one record per classifier."""
    return [{"classifier": str(index), **{" ".join(map(str, col)): plain(row[col]) for col in table.columns}}
            for index, row in table.iterrows()]


def _imposter(s: Any) -> dict[str, Any]:
    return {
        "sensitive": s.sensitive, "label": s.label, "theta": float(s.theta),
        "nmi scores (fig6)": _records(s.scores),
        "implicit attributes": list(s.implicit),
        "attacker accuracy from the implicit attributes (tau)": float(s.tau),
        "majority share (constant guess)": float(s.majority_share),
        "table 1": _table1(s.table),
        "table 1 references": plain(dict(s.table.attrs)),
        "claim": s.claim.to_dict(),
        "guarantee": s.guarantee,
        "krr column": s.krr_column, "krr epsilon": float(s.krr_epsilon),
        "krr audit": _audit(s.krr_audit),
        "epochs": int(s.epochs), "classifier": s.classifier,
    }


def _sskm(s: Any) -> dict[str, Any]:
    t = s.table
    refs = {"raw table MSE (loses nothing, protects nothing)": 0.0}
    if "random_mse" in t.columns:
        refs["random release MSE (keeps no information)"] = float(t["random_mse"].mean())
    return {
        "columns": list(s.columns), "sensitive": s.sensitive,
        "fig5 table": _records(t),
        "MSE by epsilon (mean over the maps)": [
            {"epsilon": float(e), "mse": float(v)} for e, v in t.groupby("epsilon", sort=True)["mse_mean"].mean().items()],
        "references": refs,
        "claim": s.claim.to_dict(),
        "audit epsilon": float(s.audit_epsilon),
        "audits": {mode: _audit(a) for mode, a in s.audits.items()},
        "guarantees": plain(s.guarantees),
    }


def _compare(s: Any) -> dict[str, Any]:
    return {
        "label": s.label, "sensitive": s.sensitive, "epsilons": plain(s.epsilons),
        "rows": int(s.extra.get("rows", 0)),
        "summary": _records(s.summary),
        "pareto front": _records(s.front),
        "takeaway": s.takeaway,
        "differentially private": plain(s.dp),
        "references": plain(s.references),
    }


_STORY_JSON = {"cdp": _cdp, "imposter": _imposter, "sskm": _sskm, "compare": _compare}


def story_numbers(key: str, result: Any) -> dict[str, Any]:
    """Every number the Tour's steps show of the story ``key``'s ``result``, beside its references."""
    check_choice(key, STORY_KEYS, name="story", kind=str)
    return {"title": STORIES[key][1], "sample": SAMPLES[key], **_STORY_JSON[key](result)}


def tour_numbers(results: Mapping[str, Any]) -> dict[str, Any]:
    """The bundle's numbers of stories already run (story key -> result), in the Tour's order:
    what :func:`numbers` returns when they were run with its seed and settings."""
    return {"stories": {key: story_numbers(key, results[key]) for key in STORY_KEYS if key in results}}


# ----------------------------------------------------------------------------- the protocol
def tour_dataset() -> Dataset:
    """The census sample with its roles, as a rerun of a Tour bundle loads it."""
    sample = load_sample(DATASET)
    return sample.with_roles(label=sample.label, sensitive=sample.sensitive).without_identifiers()


def tour_config(*, seed: int, settings: Mapping[str, Any]) -> Any:
    """The Tour's :class:`~core.bundle.page_config.PageConfig`: the census sample, its roles and
    fingerprint, ``seed`` (the Tour's is 0) and ``settings``."""
    from core.bundle.page_config import PageConfig

    data = tour_dataset()
    return PageConfig(page="tour", dataset=DATASET, seed=seed, label=data.label, sensitive=tuple(data.sensitive),
                      settings=dict(settings), schema=None, fingerprint=data.fingerprint())


def _check_dataset(dataset: Any) -> None:
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    if dataset.name != DATASET or not dataset.frame.equals(tour_dataset().frame):
        raise ValueError(f"The Tour runs on the built-in samples, so its bundle is made on the {DATASET} sample, "
                         f"not on {dataset.name!r}.")


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """Each chosen story run with ``seed`` and its settings, as :func:`story_numbers` (``dataset``
    must be the census sample: the stories load their samples and public schemas themselves)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    _check_dataset(dataset)
    s = check_settings(settings)
    if "imposter" in s["stories"]:
        from core.evaluation.classifiers import CLASSIFIERS

        check_choice(s["imposter"]["classifier"], CLASSIFIERS, name="imposter.classifier", kind=str)
    results, n = {}, len(s["stories"])
    for i, key in enumerate(s["stories"]):
        report(progress, i / n, f"Story {i + 1} of {n}: {STORIES[key][1]}")
        results[key] = run_story(key, seed=seed, options=s[key], progress=stage(progress, i / n, (i + 1) / n))
    return tour_numbers(results)


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: the Tour shows measurements of seeded runs and releases no table."""
    return []


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the Tour's numbers."""
    s = check_settings(settings)
    titles = "; ".join(STORIES[k][1] for k in s["stories"])
    return (f"The Tour's stories on the built-in samples ({titles}), seeded: each chart's numbers beside their "
            "references, the paper's claim checked on them, the guarantees and each audit's verdict, display "
            "measurements of seeded runs, not releases.")
