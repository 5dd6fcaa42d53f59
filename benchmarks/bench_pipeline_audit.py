"""Issue 36: every DP release reachable from a page or ``pux``, audited on neighbouring *files*.

Each audit runs the whole path from the CSV's bytes: the ``pux compare`` entry point
(:mod:`core.file_audit.entries`: the config's schema, reading by it, Compare's identifiers
and split) and the method's own fit and release (:data:`core.compare.registry.METHODS`,
the same functions Compare and the pages call). The steps before the noise are
deterministic functions of the bytes and the public seed, so they are computed once per
file and reused across runs (the same result as recomputing them); everything that draws
noise runs afresh in every run.

Pairs (:func:`core.file_audit.pairs.file_pairs`, plus the issue's own): a junk cell in a
category coded as numbers ("1", "2", "3" declared; one record's value becomes "x"), a
column whose values are all distinct getting one repeated value, a label flip, a new
category, a value far out of range, an empty line and an unclosed quote. Each audit is a
split-half Clopper-Pearson lower bound at a family-wise 95 % (Bonferroni over every audit
of the run), beside its ceiling; a bound above the claim is a violation.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from functools import lru_cache

import numpy as np

from core.audit.auditor import audit
from core.compare.registry import METHODS
from core.file_audit.entries import run_entry  # noqa: F401  (the same entry point, for the reader)
from core.file_audit.pairs import file_pair, file_pairs
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER, ColumnSchema

#: The DP releases of Compare and the pages this benchmark audits (MST and AIM: their noisy
#: measurement is audited by Compare's own audit, core.compare.audits, a release taking seconds).
RELEASES = ("SSKM_DP (sound)", "IDP-KMeans", "CDP-LR")
#: The releases of the pages that do not go through Compare: the Publishing page's DP reading
#: and the Data page's private estimate of a category list (claimed (1, 1e-6)).
PAGE_RELEASES = ("Publishing (DP reading)", "Schema estimate (city)")
EPSILON = 1.0
ESTIMATE_DELTA = 1e-6
ROWS = 400


def _table(rows: int = ROWS) -> tuple[bytes, PublicSchema]:
    rng = np.random.default_rng(36)
    lines = ["id,code,age,grade,city,sex,income"]
    for i in range(rows):
        sex = "Male" if rng.random() < 0.6 else "Female"
        income = ">50K" if rng.random() < (0.35 if sex == "Male" else 0.15) else "<=50K"
        lines.append(f"{5000 + i},k{i:04d},{int(rng.integers(18, 90))},{1 + int(rng.integers(3))},"
                     f"{('north', 'south', 'east')[int(rng.integers(3))]},{sex},{income}")
    schema = PublicSchema((
        ColumnSchema("id", "identifier"),
        ColumnSchema("code", "categorical", categories=tuple(f"k{i:04d}" for i in range(rows))),
        ColumnSchema("age", "numeric", lower=0, upper=100, integer=True),
        ColumnSchema("grade", "categorical", categories=("1", "2", "3")),
        ColumnSchema("city", "categorical", categories=("north", "south", "east")),
        ColumnSchema("sex", "categorical", categories=("Male", "Female")),
        ColumnSchema("income", "categorical", categories=("<=50K", ">50K")),
    ), label="income", sensitive=("sex",), name="pairs")
    return ("\n".join(lines) + "\n").encode(), schema


def _pairs(raw: bytes, schema: PublicSchema) -> list:
    pairs = file_pairs(raw, schema, line=7, distinct="code")
    cells = raw.split(b"\n")[8].split(b",")
    cells[3] = b"x"
    pairs.insert(0, file_pair(raw, 7, b",".join(cells), kind="junk category",
                              description="'grade' (declared '1', '2', '3') holds 'x'"))
    return pairs


@lru_cache(maxsize=64)
def _context(raw: bytes, schema_json: str):
    """Compare's context from the file's bytes (the pux compare entry point; deterministic)."""
    from core.compare.config import CompareConfig, load_dataset
    from core.compare.run import run_context
    import tempfile
    from pathlib import Path

    schema = PublicSchema.from_json(schema_json)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.csv"
        path.write_bytes(raw)
        config = CompareConfig(dataset="csv:table.csv", methods=RELEASES, epsilons=(EPSILON,), seed=0,
                               label=schema.label, sensitive=tuple(schema.sensitive), schema=schema.to_dict())
        return run_context(load_dataset(config, csv=path), schema=schema, random_state=0)


def _mechanism(name: str, schema: PublicSchema):
    if name not in METHODS:
        return None
    method = METHODS[name]
    text = schema.to_json()

    def run(file, random_state: int):
        ctx = _context(file.raw, text)
        fitted = method.fit(ctx, int(random_state), None) if method.fit is not None else None
        return method.release(ctx, fitted, EPSILON, int(random_state))
    return run


def _publishing(schema: PublicSchema):
    """The Publishing page's DP reading from the file: read by the schema (the Data page's
    reading), count queries from the schema, epsilon for the whole release."""
    from core.cdp.publishing import dp_count_release
    from core.privacy.schema_read import read_csv_by_schema

    @lru_cache(maxsize=16)
    def table(raw: bytes):
        return read_csv_by_schema(raw, schema, name="upload").without_identifiers()

    def run(file, random_state: int):
        rel = dp_count_release(table(file.raw), schema, epsilon=EPSILON, n_queries=20, budget="total",
                               random_state=int(random_state))
        return float(np.sum(rel.noisy))
    return run


def _estimate(column: str):
    """The Data page's private estimate of a drafted category list from an upload (no schema:
    the draft's reading), with its (epsilon, delta)."""
    from core.data import load_csv
    from core.privacy.schema_builtin import schema_for
    from core.privacy.schema_estimate import estimate_schema

    @lru_cache(maxsize=16)
    def table(raw: bytes):
        data = load_csv(raw, name="upload")
        return data, schema_for(data)

    def run(file, random_state: int):
        data, draft = table(file.raw)
        out = estimate_schema(data, epsilon=EPSILON, columns=[column], delta=ESTIMATE_DELTA, schema=draft,
                              random_state=int(random_state))
        cats = out[column].categories
        return float(len(cats)) + 1000.0 * ("zq_new_category" in cats)
    return run


def _statistic(kind: str):
    """One number of a release that the pair's step would move if it read the rows."""
    def table_stat(rel) -> float:
        if rel.model is not None:  # CDP-LR: the trained weights
            return float(np.sum(np.asarray(rel.model.coef_, dtype=float)))
        t = rel.table
        if kind == "distinct flip":
            return float(len(t.columns) + ("code" in t.columns))
        if kind == "junk category":
            return float((t["grade"].astype(str) == OTHER).sum()) if "grade" in t else -1.0
        if kind == "new category":
            return float((t["city"].astype(str) == OTHER).sum() + (t["city"].astype(str) == "zq_new_category").sum())
        if kind in ("out of range", "junk cell"):
            return float(np.nanmax(t["age"].to_numpy(dtype=float)))
        return float(len(t)) * 1000 + float(np.nanmean(t["age"].to_numpy(dtype=float)))
    return table_stat


def _stratified(dataset, *, test_size, max_rows, rng):
    """The split as it was: stratified on the label (the leak the public split removed)."""
    from dataclasses import replace

    from sklearn.model_selection import train_test_split

    from core.runtime.randomness import draw_seed

    draw_seed(rng)  # the row sample's seed, drawn as the real split draws it
    split_seed = draw_seed(rng)
    frame = dataset.frame
    train, hold = train_test_split(frame, test_size=test_size, random_state=split_seed,
                                   stratify=frame[dataset.label].astype(str))
    return replace(dataset, frame=train.reset_index(drop=True)), hold.reset_index(drop=True)


@contextmanager
def _leak(name: str):
    """Put one leak back for the "before" rows (as the mutant tests do)."""
    import core.compare.config as compare_config
    import core.compare.run as compare_run
    from core.data.config_files import load_named

    module, attr, value = {
        "inference and detection": (compare_config, "load_named_by_schema",
                                    lambda name, *, schema, **kw: load_named(name, **kw)),
        "stratified split": (compare_run, "split", _stratified),
    }[name]
    old = getattr(module, attr)
    setattr(module, attr, value)
    _context.cache_clear()
    try:
        yield
    finally:
        setattr(module, attr, old)
        _context.cache_clear()


#: The issue's rows measured with their leak put back: (leak, release, pair kind).
BEFORE = (("inference and detection", "IDP-KMeans", "distinct flip"),
          ("inference and detection", "SSKM_DP (sound)", "distinct flip"),
          ("inference and detection", "SSKM_DP (sound)", "junk category"),
          ("stratified split", "CDP-LR", "label flip"))


def _audit_row(name, pair, schema, runs, confidence, before: str = "") -> dict:
    start = time.perf_counter()
    mech, stat, delta = _mechanism(name, schema), _statistic(pair.kind), 0.0
    if name == PAGE_RELEASES[0]:
        mech, stat = _publishing(schema), None
    elif name == PAGE_RELEASES[1]:
        mech, stat, delta = _estimate("city"), None, ESTIMATE_DELTA
    res = audit(mech, pair.neighbouring(), claimed_epsilon=EPSILON, claimed_delta=delta,
                statistic=stat, runs=runs, confidence=confidence, random_state=36)
    row = {"release": name, "pair": pair.kind, "leak put back": before or None, "claimed": EPSILON,
           "lower_bound": round(res.epsilon_lower, 3), "ceiling": round(res.ceiling, 3),
           "violation": res.violation, "runs_per_side": res.runs,
           "seconds": round(time.perf_counter() - start, 1)}
    print(row, flush=True)
    return row


def run(*, quick: bool) -> dict:
    raw, schema = _table(120 if quick else ROWS)
    pairs = _pairs(raw, schema)
    runs = 60 if quick else 300
    family = len(RELEASES + PAGE_RELEASES) * len(pairs) + len(BEFORE)
    confidence = 1 - 0.05 / family
    rows = [_audit_row(name, pair, schema, runs, confidence) for name in RELEASES + PAGE_RELEASES
            for pair in pairs]
    before = []
    for leak, name, kind in BEFORE:
        with _leak(leak):
            before.append(_audit_row(name, next(p for p in pairs if p.kind == kind), schema, runs, confidence, leak))
    return {"rows": rows, "before": before, "records": len(raw.split(b"\n")) - 2, "family_size": family,
            "confidence_each": confidence, "family_wise": 0.95, "violations": sum(r["violation"] for r in rows)}
