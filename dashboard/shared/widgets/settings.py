"""Page settings that survive navigation and live in the address bar.

Streamlit forgets a widget's value when its page is not shown. The app keeps a copy of
every registered setting after each run (:func:`remember`) and gives it back before the
page runs again (:func:`restore`). The settings of the page on screen, the seed and the
dataset (a built-in sample or a public dataset, with its roles) are also written to the
URL's query string, so a copied link reopens the same view: on a session's first run,
:func:`restore` reads them back, checking each value (a wrong one is ignored, never shown
as an error). Uploaded tables are never named in the URL: a link cannot carry them.

Each page's settings are listed once in :data:`PAGE_SETTINGS` (by the page's URL path);
``tests/dashboard/shared/widgets/test_settings.py`` checks the list against the widgets on the pages.

One dataset, one state. A setting that names columns (``Setting(..., role=...)``, and the
keys under :data:`COLUMN_PREFIXES`) belongs to the dataset it was made on. Before every
page runs, :func:`restore` compares the chosen dataset's fingerprint (its rows, columns and
roles: label, sensitive, identifiers) with the one the kept settings were made on: when it
changed (another dataset, or other roles marked on the Data page), every column setting is
dropped, so each page starts again from the Data page's roles (its sensitive, label and
column pickers default to them), and the Data page's own column pick is dropped when the new
dataset lacks its column. A page may still override the Data page's roles for itself, with
its own visible widget (IMPOSTER's "Sensitive attribute s", SSKM_DP's "Attributes to
publish"): the override holds while the dataset and its roles stay the same.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

__all__ = ["Setting", "PAGE_SETTINGS", "KEPT_PREFIXES", "COLUMN_PREFIXES", "COLUMN_SETTINGS", "url_params",
           "parse_params", "restore", "remember", "is_column_setting", "settle_dataset"]


@dataclass(frozen=True)
class Setting:
    """One widget's value, kept across pages and written to the URL.

    Parameters
    ----------
    key : str
        The widget's key. In the URL it appears without its page prefix
        (``lr_eps`` -> ``eps``).
    kind : {"float", "int", "str", "bool", "list", "int-list"}
        How the value reads from the URL.
    lo, hi : float, optional
        The widget's bounds (sliders and number inputs); a URL value outside is ignored.
    role : {None, "label", "sensitive", "columns"}
        What a column-valued setting holds: the label, sensitive columns or other columns
        (None: not columns). Column settings are dropped when the dataset changes, so the
        page starts again from the Data page's roles.
    """

    key: str
    kind: str
    lo: float | None = None
    hi: float | None = None
    role: str | None = None

    @property
    def param(self) -> str:
        return self.key.split("_", 1)[1]

    def parse(self, values: list[str]) -> Any:
        """The value from the URL's text(s); raises ValueError when it does not fit."""
        if self.kind == "list":
            return [str(v) for v in values]
        if self.kind == "int-list":
            return [int(v) for v in values]
        if len(values) != 1:
            raise ValueError(f"{self.param} takes one value")
        text = values[0]
        if self.kind == "str":
            return text
        if self.kind == "bool":
            if text not in ("true", "false"):
                raise ValueError(f"{self.param} must be true or false")
            return text == "true"
        value = float(text) if self.kind == "float" else int(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.param} must be finite")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ValueError(f"{self.param} must lie in [{self.lo:g}, {self.hi:g}]")
        return value

    def text(self, value: Any) -> str | list[str]:
        """The value as the URL writes it."""
        if self.kind in ("list", "int-list"):
            return [str(v) for v in value]
        if self.kind == "bool":
            return "true" if value else "false"
        return f"{value:g}" if isinstance(value, float) else str(value)


def _f(key: str, lo: float, hi: float) -> Setting:
    return Setting(key, "float", lo, hi)


def _i(key: str, lo: int, hi: int) -> Setting:
    return Setting(key, "int", lo, hi)


def _s(key: str) -> Setting:
    return Setting(key, "str")


def _b(key: str) -> Setting:
    return Setting(key, "bool")


def _l(key: str) -> Setting:
    return Setting(key, "list")


def _col(key: str, role: str, kind: str = "str") -> Setting:
    """A setting that names columns of the dataset (the label, sensitive or other columns)."""
    return Setting(key, kind, role=role)


#: the settings of each page, by its URL path (selections fall back to the widget's
#: default when the URL names an option that does not exist, so they need no bounds)
PAGE_SETTINGS: dict[str, tuple[Setting, ...]] = {
    "correlations": (_s("corr_method"), _i("corr_mic_rows", 100, 20000), _s("corr_measure"),
                     _f("corr_threshold", 0.05, 1.0), _i("corr_n", 50, 500)),
    "dc_fbfs": (_s("fb_measure"), _f("fb_threshold", 0.05, 1.0), _i("fb_rows", 200, 50000)),
    "cdp_lr": (_f("lr_eps", 0.1, 10.0), _i("lr_method", 0, 7), _s("lr_preset"), _s("lr_measure"),
               _f("lr_threshold", 0.05, 1.0), _f("lr_tc", 0.0, 1e9), _i("lr_rows", 200, 50000),
               _i("lr_reps", 1, 20), _b("lr_methods"), _b("lr_dpsgd")),
    "publishing": (_s("pub_measure"), _f("pub_threshold", 0.05, 1.0), _i("pub_queries", 20, 500),
                   _i("pub_reps", 1, 20), _s("pub_budget"), _b("pub_products"), _f("pub_epsilon", 0.0, 1e9),
                   _s("pub_scheme"), _b("pub_fig7")),
    "imposter": (_col("imposter_sensitive", "sensitive"), _col("imposter_label", "label"), _f("imposter_theta", 0.0, 0.3),
                 _f("imposter_beta", 0.0, 1.0), _s("imposter_det_clf"), _s("imposter_metric"),
                 _b("imposter_rewrite_label"), _f("imposter_lambda", 0.0, 10.0),
                 _i("imposter_epochs", 1, 1000), _i("imposter_latent", 1, 1024), _s("imposter_v2_loss"),
                 _l("imposter_classifiers"), _s("imposter_krr_clf"), _s("imposter_sweep_clf"),
                 _i("imposter_sweep_epochs", 1, 1000), _s("imposter_thetas"), _s("imposter_lambdas")),
    "sskm": (_col("sskm_columns", "columns", "list"), _col("sskm_sensitive", "sensitive", "list"), _i("sskm_rows", 2, 20), _i("sskm_cols", 2, 20),
             _s("sskm_topology"), _s("sskm_init"), _i("sskm_iterations", 1000, 200_000),
             _f("sskm_sigma", 0.5, 10.0), _i("sskm_mic_rows", 200, 50_000), _s("sskm_mode"),
             _f("sskm_epsilon", 0.0, 1e9), _f("sskm_cs", 0.0, 1.0), _s("sskm_view"),
             _col("sskm_component", "columns"), _col("sskm_share_attr", "sensitive"), _b("sskm_run_baselines"), Setting("sskm_a_values", "int-list"),
             Setting("sskm_sweep_m", "int-list"), _l("sskm_sweep_grids"), _i("sskm_sweep_reps", 1, 20),
             _i("sskm_sweep_iterations", 1000, 100_000)),
    "tour": (_i("tour_step", 0, 99), _b("tour_large")),
    "compare": (_l("cmp_methods"), _col("cmp_sensitive", "sensitive", "list"), _l("cmp_eps"), _i("cmp_reps", 1, 10),
                _s("cmp_rows"), _i("cmp_epochs", 1, 200), _s("cmp_risk"), _i("cmp_audit_runs", 0, 1000)),
}
#: every registered setting's key (what the app keeps across pages, with KEPT_PREFIXES)
_REGISTERED = frozenset(s.key for settings in PAGE_SETTINGS.values() for s in settings)
#: widget keys made of a prefix and the context they belong to (a dataset, a threshold):
#: kept across pages, never put in the URL
KEPT_PREFIXES = ("fb_tc_", "imposter_implicit_", "data_dist_col_")
#: the kept prefixed keys whose values are columns (checked against the dataset's columns)
COLUMN_PREFIXES = ("imposter_implicit_", "data_dist_col_")
#: those among them that also start afresh when the dataset or its roles change (the Data
#: page's own column picker only needs its column to exist)
_RESET_PREFIXES = ("imposter_implicit_",)
#: the keys of every column-valued setting (see the module's "one dataset, one state")
COLUMN_SETTINGS = frozenset(s.key for settings in PAGE_SETTINGS.values() for s in settings if s.role)
#: the URL's own parameters beside the page settings
SEED_PARAM, DATA_PARAM, LABEL_PARAM, SENSITIVE_PARAM = "seed", "data", "label", "sensitive"
_KEPT = "pux_kept_settings"
_URL_READ = "pux_url_read"
#: the fingerprint of the dataset the kept column settings were made on
DATASET_SEEN = "pux_settings_dataset"
_UNSEEN = object()


def _settings(page: str) -> tuple[Setting, ...]:
    return PAGE_SETTINGS.get(page, ())


def url_params(page: str, state: Mapping[str, Any], *, seed: int | None = None,
               data: tuple[str, str | None, tuple[str, ...]] | None = None) -> dict[str, Any]:
    """The query string for ``page``: its settings present in ``state``, the seed, and the
    dataset as (source name, label, sensitive) when it can be named in a link."""
    out: dict[str, Any] = {}
    if data is not None:
        name, label, sensitive = data
        out[DATA_PARAM] = name  # the roles always, empty for none (absent: the dataset's own)
        out[LABEL_PARAM] = label or ""
        out[SENSITIVE_PARAM] = list(sensitive) or [""]
    if seed:
        out[SEED_PARAM] = str(int(seed))
    for setting in _settings(page):
        if setting.key in state:
            out[setting.param] = setting.text(state[setting.key])
    return out


def parse_params(page: str, params: Mapping[str, list[str]]) -> tuple[dict[str, Any], list[str]]:
    """Session-state values for ``page`` from a query string given as name -> values.

    Returns the values that fit and the names of those that did not (ignored)."""
    values, ignored = {}, []
    for setting in _settings(page):
        if setting.param in params:
            try:
                values[setting.key] = setting.parse(list(params[setting.param]))
            except ValueError:
                ignored.append(setting.param)
    return values, ignored


def _kept_keys(state_keys: Iterable[str]) -> list[str]:
    """Every registered setting key and prefixed key among ``state_keys``."""
    return [k for k in state_keys
            if isinstance(k, str) and (k in _REGISTERED or k.startswith(KEPT_PREFIXES))]


def is_column_setting(key: Any) -> bool:
    """True for a kept key whose value names columns of the dataset."""
    return isinstance(key, str) and (key in COLUMN_SETTINGS or key.startswith(COLUMN_PREFIXES))


def _names_only(value: Any, columns: set) -> bool:
    """True when ``value`` (a column, a list of columns, or None) names only ``columns``."""
    if value is None:
        return True
    if isinstance(value, (list, tuple)):
        return all(v in columns for v in value)
    try:
        return value in columns
    except TypeError:
        return False


def settle_dataset(state: Any, kept: dict, token: Any, columns: Iterable[str] | None, *,
                   reset: bool = True) -> list[str]:
    """Fit the column settings in ``state`` and ``kept`` to the dataset ``token`` names.

    Parameters
    ----------
    state : mapping
        Session state (or a dict in tests).
    kept : dict
        The kept copies of the settings.
    token : str or None
        The dataset's fingerprint (None: nothing chosen).
    columns : iterable of str or None
        Its columns (None: unknown, no check).
    reset : bool
        Act when ``token`` differs from the one seen before: drop every role and column
        setting, and the Data page's column picks that name a column the dataset lacks
        (False on a session's first run, where a link's settings go with the link's
        dataset; a link's value that fits no option falls back to the widget's default).

    Returns
    -------
    list of str
        The keys dropped (each page's widget then starts from the Data page's roles).
    """
    changed = state.get(DATASET_SEEN, _UNSEEN) != token
    state[DATASET_SEEN] = token
    names = None if columns is None else set(columns)
    dropped = []
    for key in {k for k in [*kept, *list(state.keys())] if is_column_setting(k)}:
        for store in (kept, state):
            if key not in store:
                continue
            if not (changed and reset):
                continue
            afresh = key in COLUMN_SETTINGS or key.startswith(_RESET_PREFIXES)
            if afresh or (names is not None and not _names_only(store[key], names)):
                del store[key]
                if key not in dropped:
                    dropped.append(key)
    return dropped


def _settle(state: Any, kept: dict, *, reset: bool = True) -> list[str]:
    from dashboard.shared.serving.state import chosen_dataset

    chosen = chosen_dataset()
    token = None if chosen is None else chosen.fingerprint()
    return settle_dataset(state, kept, token, None if chosen is None else chosen.frame.columns,
                          reset=reset)


# ---------------------------------------------------------------- streamlit side
def _keep(state) -> dict:
    """Copy the registered settings now in session state; returns the kept copies.

    Done at the start of every run, when the previous run's widgets (and the change the
    viewer just made) are still in session state: a page that ends with ``st.stop()``
    allows no streamlit call after it, so its settings cannot be kept at the end."""
    kept = state.setdefault(_KEPT, {})
    for key in _kept_keys(list(state.keys())):
        kept[key] = state[key]
    return kept


def restore(page: str) -> None:
    """Before ``page`` runs: keep the settings on screen, give the page's widgets their
    kept values back, and on the session's first run take the settings, seed and dataset
    from the URL."""
    import streamlit as st

    kept = _keep(st.session_state)
    first = not st.session_state.get(_URL_READ)
    _settle(st.session_state, kept, reset=not first)  # another dataset: its own settings
    for key in _kept_keys(kept):
        if key not in st.session_state:
            st.session_state[key] = kept[key]
    if not first:
        _write_url(page)
        return
    st.session_state[_URL_READ] = True
    params = {name: st.query_params.get_all(name) for name in st.query_params.keys()}
    if not params:
        return
    values, ignored = parse_params(page, params)
    for key, value in values.items():
        st.session_state[key] = value
    _restore_seed(params, ignored)
    _restore_dataset(params, ignored)
    _settle(st.session_state, kept, reset=False)  # the link's column settings go with its dataset
    if ignored:
        from dashboard.shared.safe import md

        st.toast("This link's settings " + ", ".join(md(n) for n in ignored)
                 + " do not fit this page and were left at their defaults.", icon=":material/link_off:")


def _restore_seed(params: Mapping[str, list[str]], ignored: list[str]) -> None:
    import streamlit as st

    from dashboard.shared.serving.state import SEED_KEY

    if SEED_PARAM in params:
        try:
            seed = int(params[SEED_PARAM][0])
            if not 0 <= seed <= 2**31 - 1:
                raise ValueError
            st.session_state[SEED_KEY] = seed
        except ValueError:
            ignored.append(SEED_PARAM)


def _restore_dataset(params: Mapping[str, list[str]], ignored: list[str]) -> None:
    from dashboard.shared.serving.state import choose_linked_dataset

    if DATA_PARAM not in params:
        return
    # a role the link does not name (...) keeps the dataset's own; an empty one means none
    label = (params[LABEL_PARAM][0] or None) if LABEL_PARAM in params else ...
    sensitive = tuple(s for s in params[SENSITIVE_PARAM] if s) if SENSITIVE_PARAM in params else ...
    if not choose_linked_dataset(params[DATA_PARAM][0], label=label, sensitive=sensitive):
        ignored.append(DATA_PARAM)


def remember(page: str) -> None:
    """After ``page`` ran to its end: keep its settings and write them to the URL (after a
    ``st.stop()`` this stops at once; :func:`restore` catches up on the next run)."""
    import streamlit as st

    _keep(st.session_state)
    _write_url(page)


def _write_url(page: str) -> None:
    import streamlit as st

    from dashboard.shared.serving.state import current_seed, linked_dataset

    wanted = url_params(page, st.session_state, seed=current_seed(), data=linked_dataset())
    now = {name: (st.query_params.get_all(name) if isinstance(wanted.get(name), list)
                  else st.query_params.get(name)) for name in st.query_params.keys()}
    if now != wanted:
        st.query_params.from_dict(wanted)
