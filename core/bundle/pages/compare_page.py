"""Compare in a bundle: its settings are a ``pux-compare/1`` config, its numbers what
``pux compare --json`` writes (:meth:`core.compare.result.ComparisonResult.to_dict`)."""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping

from core.bundle.pages import BundleRelease
from core.compare.config import CompareConfig, compare_dataset, load_schema
from core.data import Dataset
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, watch

__all__ = ["TITLE", "check_settings", "numbers", "releases", "describe", "compare_config", "from_compare_config"]

TITLE = "Compare"
#: The fields of a compare config that a page config holds elsewhere (not in ``settings``).
_OUTSIDE = ("dataset", "seed", "label", "sensitive", "schema", "fingerprint")


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Every compare setting but the dataset, seed, roles, schema and fingerprint, checked by
    :class:`~core.compare.config.CompareConfig` (``methods`` and ``epsilons`` have no default)."""
    if not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a JSON object, got {type(settings).__name__}.")
    outside = sorted(k for k in settings if k in _OUTSIDE)
    if outside:
        raise ValueError(f"settings may not hold {outside}: they are fields of the config itself.")
    if "methods" not in settings or "epsilons" not in settings:
        raise ValueError("Compare's settings need methods and epsilons.")
    config = CompareConfig(dataset="supplier", seed=0, **dict(settings))
    return {k: v for k, v in config.to_dict().items() if k != "format" and k not in _OUTSIDE}


def compare_config(dataset: str, *, seed: int | None, label: str | None, sensitive: tuple[str, ...],
                   settings: Mapping[str, Any], schema: dict | None, fingerprint: str | None) -> CompareConfig:
    """The ``pux-compare/1`` config of a page config's fields (seed 0 stands for a missing one)."""
    return CompareConfig(dataset=dataset, seed=0 if seed is None else seed, label=label, sensitive=tuple(sensitive),
                         schema=schema, fingerprint=fingerprint, **dict(settings))


def from_compare_config(config: CompareConfig) -> dict[str, Any]:
    """A compare config's fields as a page config's keyword arguments (``page="compare"``)."""
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    out = {f.name: getattr(config, f.name) for f in fields(config) if f.name in _OUTSIDE}
    if isinstance(config.schema, str):  # a schema file beside the config: the bundle holds it inline
        out["schema"] = load_schema(config, None).to_dict()
    out["settings"] = {k: v for k, v in config.to_dict().items() if k != "format" and k not in _OUTSIDE}
    return {"page": "compare", **out}


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The comparison's JSON (the shape ``pux compare --json`` writes), seeded by ``seed``."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    config = compare_config("supplier", seed=seed, label=dataset.label, sensitive=tuple(dataset.sensitive),
                            settings=settings, schema=None, fingerprint=None)
    return compare_dataset(config, dataset, progress=progress, schema=schema, stop=stop).to_dict()


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: Compare measures releases made for comparison and publishes no table."""
    return []


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the comparison's numbers."""
    eps = ", ".join(f"{e:g}" for e in settings["epsilons"])
    return (f"Every measure of {', '.join(settings['methods'])} at epsilon {eps}, "
            f"{settings['repetitions']} repetition(s) each, with the references and the audit beside every DP point.")
