""""Download bundle" on every page that has a result: the result as a zip a colleague can rerun.

:func:`bundle_download` asks who the bundle is for (a colleague who may see the data, or the
public), prepares it with :func:`core.bundle.build.build_bundle` (progress with the time left),
adds what it lets out to the session's ledger and offers the zip. Layout and session state
only: the bundle is made in core.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Mapping

import streamlit as st

from core.bundle.build import Bundle, build_bundle
from core.bundle.disclosure import KIND_WORDS, KINDS
from core.bundle.page_config import PageConfig
from core.data import Dataset
from core.data.config_files import PUBLIC
from core.data.samples import SAMPLES
from dashboard.shared.serving.state import show_error
from dashboard.shared.widgets.preamble import is_builtin_sample
from dashboard.shared.safe import md
from dashboard.shared.serving.session_ledger import record_release, session_total_text

__all__ = ["bundle_download", "config_dataset", "page_config"]

_HELP = ("A zip with a README, the settings (public schema, every seed), the report, the released tables, "
         "the result as JSON, and a script and notebook that recompute every number with this project's core.")


def config_dataset(dataset: Dataset) -> str:
    """How a config names ``dataset``: the sample's or public dataset's name, else ``csv:<name>``."""
    if dataset.name in SAMPLES and is_builtin_sample(dataset):
        return dataset.name
    if dataset.name in PUBLIC and not is_builtin_sample(dataset):
        return dataset.name
    return f"csv:{dataset.name}"


def page_config(page: str, dataset: Dataset, *, seed: int, settings: Mapping[str, Any],
                schema: Any = None) -> PageConfig:
    """The page config of what a page shows (its dataset, roles, seed, settings, public schema)."""
    return PageConfig(page=page, dataset=config_dataset(dataset), seed=int(seed), label=dataset.label,
                      sensitive=tuple(dataset.sensitive), settings=dict(settings),
                      schema=None if schema is None else schema.to_dict(), fingerprint=dataset.fingerprint())


def _progress_bar(slot: Any) -> Callable[[float, str], None]:
    bar = slot.progress(0.0, text="Preparing the bundle...")
    start = time.perf_counter()

    def progress(fraction: float, message: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        elapsed = time.perf_counter() - start
        left = f", about {elapsed * (1 - fraction) / fraction:.0f} s left" if 0.05 < fraction < 1 else ""
        bar.progress(fraction, text=f"{message}{left}")
    return progress


def _prepare(config: Any, dataset: Dataset, kind: str, include_data: bool,
             extra: Callable[[], Mapping[str, Any]] | None) -> Bundle | None:
    slot = st.empty()  # the progress bar, gone once the bundle is made
    try:
        parts = dict(extra()) if extra is not None and kind == "colleague" else {}
        bundle = build_bundle(config, dataset, kind=kind, include_data=include_data, progress=_progress_bar(slot),
                              **parts)
    except (ValueError, TypeError) as exc:
        show_error(exc)
        return None
    finally:
        slot.empty()
    record_release(bundle.ledger, f"bundle {kind}: {bundle.manifest['title']}")
    return bundle


def bundle_download(key: str, *, config: Any, dataset: Dataset,
                    extra: Callable[[], Mapping[str, Any]] | None = None, releases_table: bool = True) -> None:
    """The "Download bundle" block.

    Parameters
    ----------
    key : str
        Prefix of the widget and session-state keys.
    config : PageConfig or CompareConfig
        What the page shows, as a config (:func:`page_config`).
    dataset : Dataset
        The page's data.
    extra : callable, optional
        Returns what the page already computed, for a colleague's bundle (``numbers``,
        ``report_html``, ``numbers_seconds``: see :func:`core.bundle.build.build_bundle`).
    releases_table : bool
        Whether the page releases a table (without one, only a colleague's bundle is offered).
    """
    kinds = KINDS if releases_table else ("colleague",)
    c1, c2 = st.columns([3, 2], vertical_alignment="center")
    kind = c1.radio("Who is the bundle for?", kinds, format_func=KIND_WORDS.get, key=f"{key}_bundle_kind",
                    help="A colleague's bundle holds exact statistics of the private rows and every seed: it is "
                    "not differentially private. A bundle to publish holds only releases drawn from fresh "
                    "noise, their guarantees and the public schema.")
    uploaded = config_dataset(dataset).startswith("csv:")
    include = c2.checkbox("Include the private data", key=f"{key}_bundle_data", disabled=kind != "colleague"
                          or not uploaded, help="Copy the uploaded table into the bundle (a colleague's bundle "
                          "only; samples and public datasets are named, not copied).")
    prepared_key = f"{key}_bundle"
    if st.button("Prepare bundle", key=f"{key}_bundle_prepare", icon=":material/folder_zip:", help=_HELP):
        st.session_state[prepared_key] = _prepare(config, dataset, kind, bool(include and kind == "colleague"),
                                                  extra)
    bundle = st.session_state.get(prepared_key)
    if not isinstance(bundle, Bundle):
        st.caption("Nothing prepared yet. A bundle counts toward the session's ledger when it is prepared.")
        return
    st.download_button("Download bundle (zip)", bundle.data, file_name=bundle.file_name, mime="application/zip",
                       key=f"{key}_bundle_download", icon=":material/download:", on_click="ignore")
    st.caption(md(bundle.manifest["disclosure"]) + " " + md(session_total_text()) + " Rerun it in the unpacked "
               "folder with python rerun.py, or pux rerun " + md(bundle.file_name) + ".")
