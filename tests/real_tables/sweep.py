"""The real-table sweep (issue 39): every page in AppTest, at its defaults and with its main
action, on a table of :mod:`tests.real_tables.corpus` uploaded on the Data page.

:func:`sweep` uploads the table's CSV bytes through the Data page's file uploader (the page
reads them with :func:`core.data.csv_loader.load_csv`), sets its roles with the Data page's
widgets, opens the page, runs its main action with the row and epoch caps of :class:`Caps`,
and returns a :class:`Record`: seconds, what was shown, the warnings, and the problems found
by :func:`problems`:

- an uncaught exception, or an error box;
- a claim rated "Holds here" whose own numbers are degenerate (two numbers compared that
  are tied, three or more that are all equal, a count at the N(N-1)/2 ceiling of the rows
  used, or a Pearson record correlation from fewer than three features) under the
  definitions of :mod:`core.claims.degenerate`;
- a headline number without its reference: an ``st.metric`` with neither a delta nor a help.

The test (:mod:`tests.real_tables.test_sweep`) asserts no problem; the benchmark
(``python -m benchmarks --only real_tables``) writes the records of the whole corpus.
"""
from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from streamlit.config import set_option
from streamlit.testing.v1 import AppTest

from core.data import Dataset
from core.claims.degenerate import MIN_PEARSON_FEATURES, pair_ceiling, tied
from dashboard.navigation import page_file
from tests.real_tables.corpus import Table, upload

__all__ = ["PAGES", "TABLE_PAGES", "Caps", "Record", "sweep", "problems", "degenerate_holds"]

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
#: every page of the app; the Tour works on its own samples, so it runs once, not per table
PAGES = ("data", "correlations", "dc_fbfs", "cdp_lr", "publishing", "imposter", "sskm", "compare", "tour")
#: the pages that work on the chosen table
TABLE_PAGES = tuple(p for p in PAGES if p != "tour")
#: the pages whose claims rest on a record correlation across the table's features
_RECORD_PAGES = ("correlations", "dc_fbfs")


@dataclass(frozen=True)
class Caps:
    """What the sweep caps in a page's main action (its other settings stay at their defaults).

    Attributes
    ----------
    rows : int
        Compare's "Rows used" (the largest of its choices not above this; every row when the
        table is smaller).
    epochs : int
        IMPOSTER's training epochs (its page and Compare's).
    repetitions : int
        Compare's repetitions.
    epsilons : tuple of str
        Compare's epsilon grid (its default holds four: MST's releases alone take about
        50 s each).
    audit_runs : int
        Compare's audit runs per side (the smallest of its choices that audits: the sweep
        checks that the page works, not the audits' power).
    timeout : float
        Seconds one page's work may take (one script run, or its jobs together): a page
        that takes longer is a problem of the sweep (a new user would give up too).
    """

    rows: int = 500
    epochs: int = 2
    repetitions: int = 1
    epsilons: tuple[str, ...] = ("1",)
    audit_runs: int = 200
    timeout: float = 300.0


@dataclass
class Record:
    """One page on one table: the row of the sweep's table."""

    page: str
    table: str
    seconds: float = 0.0
    shown: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------------------ checks
_NUMBER = r"[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?"
_PAIR = re.compile(rf"({_NUMBER})\s+vs\.?\s+(?:[A-Za-z_][\w\-]*\s+)?({_NUMBER})")
_HOLDS = "Holds here"
#: error boxes that are a page's finding, not a failure: an audit's VIOLATION verdict on a
#: paper's own (not differentially private) mode, which the Tour's SSKM_DP step shows on purpose
_INTENDED_ERROR = re.compile(r"^\*\*Audit, .*paper mode.*VIOLATION", re.S)
#: what a finding says it left out of its rule (core/cdp/claims.py): not part of the verdict
_LEFT_OUT = "Left out as degenerate"


def _num(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def degenerate_holds(text: str, *, n_rows: int | None = None) -> str | None:
    """Why a claim box rated "Holds here" rests on a degenerate number, or None.

    Reads the box's own finding (what it says it left out as degenerate does not count): a
    pair written "a vs b" that is tied, three or more numbers (not counts like "4 of 4") all
    tied, or a number at the N(N-1)/2 pair ceiling of ``n_rows`` records or of an "N = ..."
    the finding names (:mod:`core.claims.degenerate`).
    """
    if f"{_HOLDS}.**" not in text:
        return None
    # the finding, between the bold figure and verdict and the paper's words, unescaped
    finding = text.split(f"{_HOLDS}.**", 1)[1].split("*The paper:*", 1)[0].replace("\\", "")
    sizes = {int(_num(n)) for n in re.findall(rf"\bN = ({_NUMBER})", finding)} | ({int(n_rows)} if n_rows else set())
    finding = finding.split(_LEFT_OUT, 1)[0]
    for a, b in _PAIR.findall(finding):
        if tied(_num(a), _num(b)):
            return f"a tie read as an order ({a} vs {b})"
    values = [_num(v) for v in re.findall(rf"(?<![\w.]){_NUMBER}", re.sub(r"\d+ of \d+", "", finding))]
    values = [v for v in values if v != 0]
    if len(values) >= 3 and all(tied(v, values[0]) for v in values[1:]):
        return f"a constant series read as a trend or an order ({values[0]:g} throughout)"
    for n in sorted(n for n in sizes if n > 2):
        ceiling = pair_ceiling(n)
        if any(tied(v, ceiling) for v in values):
            return f"a count at its N(N-1)/2 ceiling ({ceiling:,.0f} for {n:,} rows)"
    return None


def _boxes(at: AppTest) -> list[str]:
    return [b.value for kind in ("success", "warning", "info") for b in getattr(at, kind)]


def _where(stack_trace) -> str:
    """The project's last frames of a traceback, one line each ('core/x.py:81 in f: code')."""
    frames = []
    for entry in stack_trace:
        head, _, code = entry.strip().partition("\n")
        match = re.match(r'File "(.+)", line (\d+), in (.+)', head)
        if match and "site-packages" not in match[1]:
            path = str(Path(match[1]).relative_to(APP.parents[1])) if match[1].startswith(str(APP.parents[1])) else match[1]
            frames.append(f"{path}:{match[2]} in {match[3]}: {code.strip().splitlines()[0] if code.strip() else ''}")
    return " <- ".join(reversed(frames[-3:]))


def problems(at: AppTest, *, n_rows: int | None = None, features: int | None = None,
             expected_error: str | None = None) -> list[str]:
    """What is wrong on the page ``at`` shows (empty when nothing is).

    Parameters
    ----------
    n_rows : int, optional
        The rows the page works on (a count at their pair ceiling is degenerate).
    features : int, optional
        The features of the page's record correlation: below 3 every "Holds here" on the
        Correlations and DC-FBFS pages is a Pearson degenerate point.
    expected_error : str, optional
        Words of the one error box the page must show (the Data page refusing a role).
    """
    found = [f"exception: {e.proto.type}: {e.message} | " + _where(e.stack_trace) for e in at.exception]
    errors = [e.value for e in at.error]
    if expected_error is not None:
        if not any(expected_error in e for e in errors):
            found.append(f"expected an error box saying {expected_error!r}, got {errors}")
        errors = [e for e in errors if expected_error not in e]
    found += [f"error box: {e}" for e in errors if not _INTENDED_ERROR.search(e)]
    for text in _boxes(at):
        why = degenerate_holds(text, n_rows=n_rows)
        if why:
            found.append(f"'Holds here' on {why}: {text[:200]}")
        elif (features is not None and features < MIN_PEARSON_FEATURES and f"{_HOLDS}.**" in text
              and "Pearson" in text):
            found.append(f"'Holds here' on a Pearson record correlation from {features} features: {text[:200]}")
    for m in at.metric:
        if not (m.delta or m.help):
            found.append(f"metric without a reference (no delta, no help): {m.label} = {m.value}")
    return found


def shown(at: AppTest) -> dict:
    """What the page showed, counted by kind (and the claim verdicts)."""
    counts = {
        "charts": len(at.get("plotly_chart")) + len(at.get("arrow_vega_lite_chart")),
        "tables": len(at.dataframe) + len(at.table),
        "metrics": len(at.metric),
        "downloads": len(at.get("download_button")),
        "infos": len(at.info), "warnings": len(at.warning),
    }
    verdicts = [v for v in ("Holds here", "Does not hold here", "Cannot be judged here")
                if any(v in t for t in _boxes(at))]
    counts["verdicts"] = {v: sum(v in t for t in _boxes(at)) for v in verdicts}
    return counts


# ------------------------------------------------------------------------------ driving
def _jobs_running(at: AppTest) -> list:
    running = []
    for key in ("pux_sweep_jobs", "imposter_jobs"):
        jobs = at.session_state[key] if key in at.session_state else {}
        running += [job for job in jobs.values() if getattr(job, "running", False)]
    return running


def finish(at: AppTest, *, timeout: float, rounds: int = 8) -> AppTest:
    """Let the page's jobs (sweeps, setups, IMPOSTER's training) end, rerunning the page after
    each round, as the live view would in a browser.

    Raises
    ------
    TimeoutError
        They did not end within ``timeout`` seconds together (they are stopped first, so
        they do not slow the next page).
    """
    deadline = time.monotonic() + timeout
    for _ in range(rounds):
        running = _jobs_running(at)
        if not running:
            return at
        for job in running:
            if not job.wait(max(deadline - time.monotonic(), 0.0)):
                for late in _jobs_running(at):
                    late.stop()
                names = sorted({str(getattr(getattr(j, "sweep", None), "title", None) or j.name) for j in running})
                raise TimeoutError(f"the page's work ({', '.join(names)}) did not end within {timeout:.0f} s")
        at.run()
    return at


def _widget(at: AppTest, kind: str, key: str):
    found = [w for w in getattr(at, kind) if w.key == key]
    return found[0] if found else None


def open_table(table: Table, *, timeout: float) -> tuple[AppTest, Dataset]:
    """An AppTest on the Data page with ``table`` uploaded and its roles set (a refused label
    leaves its error box on the page), and the dataset the pages use."""
    content, _, dataset = upload(table)
    # the app hides an exception's text from its users ("none"); the sweep reports it
    set_option("client.showErrorDetails", "full")
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.run()
    at.radio(key="data_source").set_value("Upload a CSV").run()
    at.file_uploader(key="data_upload").set_value((f"{table.name}.csv", content, "text/csv")).run()
    if table.sensitive:
        at.multiselect(key=f"data_sensitive_{table.name}").set_value(list(table.sensitive)).run()
    if table.label is not None:
        at.selectbox(key=f"data_label_{table.name}").set_value(table.label).run()
    return at, dataset


def _click(at: AppTest, key: str) -> str:
    """Click the button ``key`` when the page offers it enabled; what happened, in a word."""
    button = _widget(at, "button", key)
    if button is None:
        return "absent"
    if button.disabled:
        return "disabled"
    button.click().run()
    return "run"


def _preset(at: AppTest, page: str, caps: Caps, n_rows: int) -> None:
    """Give the capped settings their values before ``page`` first runs (Compare starts its
    comparison on opening: with the defaults, four epsilons and three repetitions of every
    row, before any widget could be moved)."""
    if page == "compare":
        from dashboard.compare.cached import row_choices

        capped = [o for o in row_choices(n_rows) if o != "all" and int(o) <= caps.rows]
        at.session_state["cmp_rows"] = capped[-1] if capped else "all"
        at.session_state["cmp_eps"] = list(caps.epsilons)
        at.session_state["cmp_reps"] = caps.repetitions
        at.session_state["cmp_epochs"] = caps.epochs
        at.session_state["cmp_audit_runs"] = caps.audit_runs
    elif page == "imposter":
        at.session_state["imposter_epochs"] = caps.epochs


def _walk_the_tour(at: AppTest, caps: Caps) -> list[str]:
    """The Tour's main action: Next through every step; the problems of each step but the
    last (which the sweep checks as the page), named by step."""
    found = []
    for step in range(1, 100):
        button = _widget(at, "button", "tour_next")
        if button is None or button.disabled:
            return found
        found += [f"step {step}: {p}" for p in problems(at)]
        button.click().run()
        finish(at, timeout=caps.timeout)
    return found


def _main_action(at: AppTest, page: str, caps: Caps, n_rows: int) -> tuple[str, list[str]]:
    """Run ``page``'s main action with ``caps``: "run", "defaults" (the page computes on
    opening), "absent" or "disabled" (the page does not offer it on this table), and the
    problems met on the way (the Tour's earlier steps)."""
    timeout = caps.timeout
    finish(at, timeout=timeout)
    done, found = "defaults", []
    if page == "imposter":
        done = _click(at, "imposter_train")
    elif page == "sskm":
        done = _click(at, "sskm_prepare")
    elif page == "compare":
        done = "run" if _widget(at, "selectbox", "cmp_rows") is not None else "absent"
    elif page == "tour":
        found, done = _walk_the_tour(at, caps), "run"
    finish(at, timeout=timeout)
    return done, found


def sweep(table: Table, pages=TABLE_PAGES, *, caps: Caps = Caps(), progress=None) -> list[Record]:
    """Run ``pages`` on ``table`` (uploaded once, then each page in turn) and check each;
    ``progress(page)``, when given, is called as each page starts.

    Raises
    ------
    tests.real_tables.corpus.Unavailable
        The table cannot be read here (its package is absent).
    """
    records = []
    start = time.perf_counter()
    at, dataset = open_table(table, timeout=caps.timeout)
    n_rows = dataset.n_rows
    features = dataset.frame.shape[1] - len(dataset.identifiers) - (dataset.label is not None)
    for page in pages:
        record = Record(page, table.name)
        if progress is not None:
            progress(page)
        if page != "data":
            start = time.perf_counter()
            at.switch_page(page_file(page))
            _preset(at, page, caps, n_rows)
            try:
                at.run()
                record.shown["action"], record.problems = _main_action(at, page, caps, n_rows)
            except Exception as exc:  # noqa: BLE001 - a page that hangs or breaks is a row of the table
                record.problems.append(f"{type(exc).__name__}: {exc}")
        record.seconds = round(time.perf_counter() - start, 2)
        record.problems += problems(at, n_rows=n_rows, features=features if page in _RECORD_PAGES else None,
                                    expected_error=table.refused if page == "data" else None)
        record.shown.update(shown(at))
        record.warnings = [w.value[:300] for w in at.warning]
        records.append(record)
    return records
