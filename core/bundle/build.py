"""A result as one zip a colleague can rerun: README, config, report, releases, result, script, notebook.

:func:`build_bundle` makes either kind (:data:`core.bundle.disclosure.KINDS`). A colleague's
bundle holds ``README.md``, ``bundle.json`` (the manifest: format, kind, page, what it
discloses, versions, every file), ``config.json`` (the public schema, every seed and setting),
``report.html``, ``result.json`` (every seeded number, and each release's guarantee and
shape), ``rerun.py`` and ``rerun.ipynb`` (the same cells: they rebuild ``result.json`` as
``rerun.json`` with ``core`` alone), the released tables under ``releases/`` (plain CSV and
JSON sidecar each) and, when asked, the data under ``data/``. A bundle to publish holds the
same files without any seed, exact statistic or data: its config has ``seed: null`` and no
fingerprint, its result only the releases' guarantees and shapes, and it is refused while its
public schema holds an entry read from the data (the config, the report and the sidecars carry
the schema). What a bundle discloses is read from the files it holds
(:func:`core.bundle.disclosure.bundle_contents`) before the README, the manifest and the report
say it.
"""
from __future__ import annotations

import io
import json
import time
import zipfile
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any, Mapping

from core.bundle.configs import as_page_config, config_dict
from core.bundle.disclosure import (KINDS, bundle_contents, bundle_ledger, check_contents, check_publishable,
                                    disclosure_sentence)
from core.bundle.notebook import script_to_notebook
from core.bundle.page_config import PageConfig, page_schema
from core.bundle.pages import BundleRelease, page_module
from core.bundle.readme import readme_text
from core.bundle.report import page_report
from core.bundle.run_steps import DATA_FOLDER, bundled_table, data_sentence, release_shapes
from core.bundle.template import Template
from core.compare.config import CompareConfig
from core.data import Dataset
from core.papers.reproductions import json_default
from core.privacy.ledger import PrivacyLedger
from core.privacy.noise_source import NoiseSource
from core.privacy.release import release_file_name, release_files
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.runtime.versions import package_versions
from core.validation import check_choice

__all__ = ["FORMAT", "Bundle", "build_bundle", "rerun_script"]

#: The manifest's ``format``.
FORMAT = "pux-bundle/1"
RERUN_COMMAND = "python rerun.py"


@dataclass(frozen=True)
class Bundle:
    """A made bundle.

    Attributes
    ----------
    data : bytes
        The zip.
    file_name : str
        Its name (``<dataset>-<page>-bundle-<kind>.zip``).
    manifest : dict
        ``bundle.json``.
    files : dict of str to int
        Every file in the zip and its size in bytes.
    ledger : PrivacyLedger
        What it lets out, for the session's ledger (not DP for a colleague's bundle).
    """

    data: bytes
    file_name: str
    manifest: dict[str, Any]
    files: dict[str, int]
    ledger: PrivacyLedger


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, default=json_default, ensure_ascii=False) + "\n").encode("utf-8")


def rerun_script(config: PageConfig, *, title: str, data_included: bool) -> str:
    """The bundle's ``rerun.py``, filled from :mod:`core.bundle.templates` ``rerun``."""
    return (Template("rerun")
            .fill_values(BUNDLE_TITLE=title, RERUN_COMMAND=RERUN_COMMAND, PAGE_NAME=config.page,
                         DATA_SENTENCE=data_sentence(config, bundled=data_included))
            .finish())


def _release_files(releases: list[BundleRelease], *, noise: NoiseSource, dataset: str,
                   schema: PublicSchema) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for number, release in enumerate(releases, 1):
        name = release_file_name(f"{release.name}.csv", ledger=release.ledger, noise=noise, number=number,
                                 dataset=dataset)
        files = release_files(release.frame, file_name=name, method=release.method, ledger=release.ledger,
                              noise=noise, schema=schema)
        out.update({f"releases/{k}": v for k, v in files.items() if k.endswith((".csv", ".json"))})
    return out


def _check(kind: str, include_data: bool, noise: NoiseSource | None) -> NoiseSource:
    check_choice(kind, KINDS, name="kind")
    if not isinstance(include_data, bool):
        raise TypeError(f"include_data must be True or False, got {type(include_data).__name__}.")
    if noise is not None and not isinstance(noise, NoiseSource):
        raise TypeError(f"noise must be a NoiseSource, got {type(noise).__name__}.")
    noise = noise if noise is not None else NoiseSource(None)
    if kind == "publish" and (include_data or not noise.private):
        raise ValueError("a bundle to publish holds no data and only releases drawn from fresh entropy "
                         "(include_data=False, a NoiseSource without a seed).")
    return noise


def _zip(files: Mapping[str, bytes]) -> bytes:
    buf = io.BytesIO()
    stamp = datetime.now(timezone.utc).timetuple()[:6]
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return buf.getvalue()


def build_bundle(config: PageConfig | CompareConfig, dataset: Dataset, *, kind: str = "colleague",
                 include_data: bool = False, schema: PublicSchema | None = None,
                 numbers: Mapping[str, Any] | None = None, report_html: str | None = None,
                 numbers_seconds: float | None = None, noise: NoiseSource | None = None,
                 created: str | None = None, progress: Progress | None = None, stop: Stop | None = None) -> Bundle:
    """Make a bundle of ``config``'s page on ``dataset``.

    Parameters
    ----------
    config : PageConfig or CompareConfig
        The page's settings, seed and public schema.
    dataset : Dataset
        The private data, with its roles.
    kind : {"colleague", "publish"}
        Who it is for (:mod:`core.bundle.disclosure`). A bundle to publish holds no seed, no
        exact statistic and no data; its releases' noise must come from fresh entropy, and its
        public schema may hold no entry read from the data. What the bundle discloses is read
        from its files (:func:`core.bundle.disclosure.bundle_contents`), not assumed from ``kind``.
    include_data : bool
        Copy the private table into ``data/`` (a colleague's bundle only; a public dataset is
        never copied: the README says where it comes from).
    schema : PublicSchema, optional
        The public schema (default: the config's, or the dataset's shipped one).
    numbers : mapping, optional
        The page's numbers when the caller already has them: they must be what the page
        module's ``numbers`` returns for this config (the page's cached layer calls the same
        function). Computed here otherwise.
    numbers_seconds : float, optional
        How long the caller took to compute ``numbers`` (the manifest's ``seconds``, which
        ``pux rerun`` compares its own time with).
    report_html : str, optional
        The report (Compare passes its own); default :func:`core.bundle.report.page_report`.
        A bundle to publish ignores it and ``numbers`` (they hold exact statistics).
    noise : NoiseSource, optional
        The releases' noise (default: fresh entropy). A seeded one makes them reproducible and
        not private, which a colleague's bundle allows and says.
    created : str, optional
        UTC time stamp (default now).
    progress : callable, optional
        Handed to the page's ``numbers``.

    Raises
    ------
    ValueError
        One sentence: a bundle to publish whose public schema holds entries read from the data
        (:func:`core.bundle.disclosure.check_publishable`, before any work), whose page releases
        no table, or whose files would hold anything exact; seeded noise or data to publish.
    """
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    noise = _check(kind, include_data, noise)
    config = _checked_config(config, dataset)
    module = page_module(config.page)
    schema = schema if schema is not None else page_schema(config, dataset)
    if kind == "publish":
        check_publishable(schema)  # before any work: its config, report and sidecars would carry it
    start = time.perf_counter()
    if kind == "colleague" and numbers is None:
        numbers = module.numbers(dataset, schema, seed=config.seed, settings=config.settings,
                                 progress=stage(progress, 0.0, 0.8))
        numbers_seconds = time.perf_counter() - start
    report(progress, 0.8, "Drawing the releases from fresh noise")
    releases = module.releases(dataset, schema, noise=noise, settings=config.settings)
    if kind == "publish":
        config = _publish_config(config, module, schema, releases)
        numbers, report_html, numbers_seconds = None, None, time.perf_counter() - start
    report(progress, 0.95, "Writing the files")
    include_data = include_data and config.csv_name is not None
    files = _members(config, releases, numbers, noise=noise, dataset=dataset, schema=schema,
                     include_data=include_data)
    contents = bundle_contents(files)  # what the files hold, read from their bytes
    check_contents(kind, contents)
    ledger = bundle_ledger(kind, releases, contents)
    result = json.loads(files["result.json"])
    manifest = {"format": FORMAT, "kind": kind, "page": config.page, "title": f"{module.TITLE} on {dataset.name}",
                "created": created or datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "disclosure": disclosure_sentence(kind, contents, ledger=ledger),
                "guarantee": ledger.describe(), "is_dp": ledger.is_dp, "data_included": bool(contents.data_files),
                "data": data_sentence(config, bundled=bool(contents.data_files)), "rerun": RERUN_COMMAND,
                "seconds": numbers_seconds, "versions": package_versions(), "releases": result["releases"]}
    files.update(_files(config, module, manifest, result, report_html))
    manifest["files"] = {name: len(data) for name, data in sorted(files.items())}
    files["README.md"] = readme_text(manifest).encode("utf-8")
    files["bundle.json"] = _json_bytes(manifest)
    sizes = {name: len(data) for name, data in sorted(files.items())}
    name = f"{dataset.name}-{config.page}-bundle-{kind}.zip".replace(" ", "_").replace("/", "_")
    return Bundle(data=_zip(files), file_name=name, manifest=manifest, files=sizes, ledger=ledger)


def _publish_config(config: PageConfig, module: Any, schema: PublicSchema,
                    releases: list[BundleRelease]) -> PageConfig:
    """The config a bundle to publish holds: no seed, no fingerprint, no setting read off the
    rows, the public schema inline; refused when the page releases no table."""
    if not releases:
        raise ValueError(f"the {module.TITLE} page releases no table, so there is nothing to publish; "
                         "make a bundle for a colleague instead.")
    private = {k: None for k in getattr(module, "PRIVATE_SETTINGS", ())}
    return replace(config, seed=None, fingerprint=None, schema=schema.to_dict(),
                   settings={**config.settings, **private})


def _members(config: PageConfig, releases: list[BundleRelease], numbers: Mapping[str, Any] | None, *,
             noise: NoiseSource, dataset: Dataset, schema: PublicSchema, include_data: bool) -> dict[str, bytes]:
    """The members the others are written from: config.json, result.json, the releases and the data."""
    result: dict[str, Any] = {} if numbers is None else {"numbers": numbers}
    result["releases"] = release_shapes(releases)
    files = {"config.json": _json_bytes(config_dict(config)), "result.json": _json_bytes(result)}
    files.update(_release_files(releases, noise=noise, dataset=dataset.name, schema=schema))
    if include_data:
        files[f"{DATA_FOLDER}/{config.csv_name}"] = bundled_table(dataset.frame)  # formula-guarded
    return files


def _checked_config(config: PageConfig | CompareConfig, dataset: Dataset) -> PageConfig:
    """``config`` as a page config whose roles are the data's (the rerun reads the config's roles)."""
    config = as_page_config(config)
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    if (dataset.label, tuple(dataset.sensitive)) != (config.label, tuple(config.sensitive)):
        raise ValueError(f"the data's roles (label {dataset.label!r}, sensitive {list(dataset.sensitive)}) differ from "
                         f"the config's (label {config.label!r}, sensitive {list(config.sensitive)}): the rerun would "
                         "read other roles; give both the same.")
    return config


def _files(config: PageConfig, module: Any, manifest: dict[str, Any], result: dict[str, Any],
           report_html: str | None) -> dict[str, bytes]:
    """report.html, rerun.py and rerun.ipynb, written from the manifest and ``result``."""
    report = report_html or page_report(
        title=manifest["title"], disclosure=manifest["disclosure"], description=module.describe(config.settings),
        result=result, settings=config_dict(config), versions=manifest["versions"], created=manifest["created"])
    script = rerun_script(config, title=manifest["title"], data_included=manifest["data_included"])
    return {"report.html": report.encode("utf-8"), "rerun.py": script.encode("utf-8"),
            "rerun.ipynb": script_to_notebook(script).encode("utf-8")}
