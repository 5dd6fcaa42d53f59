"""The Data page's "Public schema" panel: review, edit, confirm, estimate, load and save.

The public schema (:class:`core.privacy.schema.PublicSchema`) is what every release may know
about the table without reading its rows. This panel shows it as a table and changes it
only through :func:`dashboard.shared.serving.schemas.set_schema`; the other pages read it with
:func:`dashboard.shared.serving.schemas.current_schema`.

* a built-in dataset shows its shipped schema (source "built-in", the notes say where each
  entry comes from);
* an upload gets a schema drafted from its rows: every such entry is marked "not private: read
  from your data" in the table's privacy column (a few words, :data:`PRIVACY_WORDS`, so the
  column shows whole at 1280 px; the box above the table says :data:`DRAFT_WARNING` in full),
  and releases that use it say they are not differentially private;
* the table never shows a drafted number's bounds (they are the rows' exact minimum and
  maximum): the user types a public range (in the table or the public ranges) or estimates it;
* "Confirm as public knowledge" declares the chosen entries (the user vouches for them) by
  the rule of :func:`core.privacy.schema_draft.confirm_draft`: with nothing chosen, only
  identifier roles and category lists without rare values (the sentence says what was left
  out); a chosen category list with rare values (shown on this page only) asks for a ticked
  box, a chosen number needs a typed range; editing a cell declares that entry too;
* "Estimate privately with epsilon = ..." replaces the chosen entries by private estimates
  (:func:`core.privacy.schema_estimate.estimate_schema`) and shows what that cost;
* the schema downloads as JSON and a JSON schema can be uploaded (validated: a bad file gets
  one sentence and the schema before is kept).

User text (column names, categories, notes) is shown only in tables or escaped with
:func:`dashboard.shared.safe.md`.
"""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import KINDS
from core.privacy.schema_draft import RARE_CATEGORY_RECORDS, confirm_draft, rare_categories
from core.privacy.schema_estimate import DEFAULT_DELTA
from dashboard.data.sections import reread_upload
from dashboard.shared.serving.datasets import estimate_public_schema, parse_schema, schema_json
from dashboard.shared.safe import md
from dashboard.shared.serving.schemas import (
    current_schema, schema_key, schema_version, set_identifiers, set_schema,
)

__all__ = ["DRAFT_WARNING", "PRIVACY_WORDS", "parse_ranges", "schema_panel", "schema_table"]

#: what every entry drafted from the rows says
DRAFT_WARNING = ("read from your data - not private until you confirm it is public knowledge "
                 "or let the app estimate it with part of epsilon")
#: what each entry's source means for privacy, in the table's "privacy" column: a few words,
#: so the column shows whole beside the others at 1280 px (the boxes above the table and the
#: column's help say each in full)
PRIVACY_WORDS = {
    "declared": "public: declared by you",
    "built-in": "public: shipped with the data",
    "private estimate": "paid: private estimate",
    "read from data": "not private: read from your data",
}
_PRIVACY_HELP = ("What the entry means for privacy. Public: declared by you or shipped with the dataset. "
                 "Paid: estimated privately with part of epsilon, charged to every release that uses it. "
                 "Not private: " + DRAFT_WARNING + ".")
#: a message to show once, after the rerun a change causes
FLASH_KEY = "pux_schema_flash"
UPLOAD_ID_KEY = "pux_schema_upload_id"
EPSILON_KEY = "schema_epsilon"
DEFAULT_ESTIMATE_EPSILON = 1.0


def schema_table(schema: PublicSchema) -> pd.DataFrame:
    """The schema as the panel's table: one row per column, with what each entry means
    for privacy ("privacy", in :data:`PRIVACY_WORDS`) right after its kind, where it shows
    without scrolling however long the categories and notes after it run."""
    frame = schema.to_frame()
    frame.insert(frame.columns.get_loc("kind") + 1, "privacy", frame["source"].map(PRIVACY_WORDS))
    return frame


def _flash(kind: str, text: str) -> None:
    st.session_state[FLASH_KEY] = (kind, text)


def _show_flash() -> None:
    kept = st.session_state.pop(FLASH_KEY, None)
    if not kept:
        return
    kind, text = kept
    box = {"success": st.success, "error": st.error, "info": st.info}[kind]
    box(text, icon={"success": ":material/check_circle:", "error": ":material/error:",
                    "info": ":material/info:"}[kind])


def _apply(schema: PublicSchema, dataset: Dataset, message: tuple[str, str] | None = None) -> None:
    if set(schema.identifiers) != set(dataset.identifiers):  # a kind set to or from "identifier":
        dataset = set_identifiers(dataset, schema.identifiers)  # the Data page's marks follow
    set_schema(schema, dataset)
    reread_upload(schema, dataset)  # an upload is read again from its bytes, by the schema
    if message:
        _flash(*message)
    st.rerun()


def _fit_to_table(schema: PublicSchema, dataset: Dataset) -> PublicSchema:
    """An uploaded schema, checked against the table and put in its column order."""
    problems = schema.check(dataset)
    if problems:
        more = f" ({len(problems) - 1} more problem(s) like it)" if len(problems) > 1 else ""
        raise ValueError(problems[0].rstrip(".") + more + ".")
    order = list(dataset.frame.columns)
    cols = tuple(sorted(schema.columns, key=lambda c: order.index(c.name)))
    return replace(schema, columns=cols)


def _upload(dataset: Dataset, key: str) -> None:
    upload = st.file_uploader("Upload a schema (JSON)", type=["json"], key=f"schema_upload_{key}",
                              help="A schema saved from this page, or written by hand (see "
                              "examples/census.schema.json). Its entries keep the sources the "
                              "file gives them.")
    if upload is None:
        return
    done = st.session_state.get(UPLOAD_ID_KEY)
    if isinstance(done, tuple) and done[0] == upload.file_id:  # applied or refused already
        if done[1]:
            st.error(done[1], icon=":material/error:")
        return
    try:
        schema = _fit_to_table(parse_schema(upload.getvalue()), dataset)
    except (ValueError, TypeError) as exc:
        reason = str(exc).rstrip(".")
        message = md(f"The schema file was not used, the schema before is kept: {reason}.")
        st.session_state[UPLOAD_ID_KEY] = (upload.file_id, message)
        st.error(message, icon=":material/error:")
        return
    st.session_state[UPLOAD_ID_KEY] = (upload.file_id, None)
    _apply(schema, dataset, ("success", md(f"Schema loaded from {upload.name}: {schema.describe()}")))


def _chosen(schema: PublicSchema, picked: list[str], *, estimable: bool) -> list[str]:
    """The columns a button acts on: those picked, else every entry read from the data."""
    names = picked or schema.read_from_data()
    if estimable:
        names = [c for c in names if schema[c].kind != "identifier"]
    return names


def parse_ranges(text: str, schema: PublicSchema) -> dict[str, tuple[float, float]]:
    """Coarse public ranges typed as ``column: lower, upper; column: lower, upper``.

    Raises ValueError in one sentence for a part that is not of that form, a column that is
    not numeric, or bounds out of order.
    """
    out: dict[str, tuple[float, float]] = {}
    for part in (p.strip() for p in str(text).split(";")):
        if not part:
            continue
        name, sep, bounds = part.rpartition(":")
        name = name.strip()
        pieces = [b.strip() for b in bounds.split(",")]
        if not sep or len(pieces) != 2:
            raise ValueError(f"'{part}' is not of the form 'column: lower, upper'.")
        if name not in schema or schema[name].kind != "numeric":
            raise ValueError(f"'{name}' is not a numeric column of the table.")
        try:
            lo, hi = float(pieces[0]), float(pieces[1])
        except ValueError:
            raise ValueError(f"the range of '{name}' needs two numbers.") from None
        if not lo < hi:
            raise ValueError(f"the range of '{name}' needs its lower number below its upper one.")
        out[name] = (lo, hi)
    return out


def _estimate(dataset: Dataset, schema: PublicSchema, columns: list[str], epsilon: float,
              ranges_text: str) -> None:
    if not columns:
        _flash("info", "Nothing to estimate: pick the columns to estimate (identifiers have no "
                       "bounds or categories).")
        st.rerun()
    try:
        ranges = {c: r for c, r in parse_ranges(ranges_text, schema).items() if c in columns}
    except ValueError as exc:
        st.error(md(f"The public ranges were not understood: {exc}"), icon=":material/error:")
        return
    bar = st.progress(0.0, text="Estimating privately...")
    try:
        new = estimate_public_schema(dataset, schema, epsilon=epsilon, columns=columns, ranges=ranges,
                                     progress=lambda f, m: bar.progress(f, text=md(m)))
    except (ValueError, TypeError, RuntimeError) as exc:
        bar.empty()
        st.error(md(exc), icon=":material/error:")
        return
    eps, dlt = new.estimate.nominal()
    cost = (f"Estimated {len(columns)} column(s) privately with epsilon = {epsilon:.4g}, split evenly "
            "over them" + (f" (delta = {DEFAULT_DELTA:.0e} for the category lists)"
                           if any(schema[c].kind == "categorical" for c in columns) else "")
            + f". The schema's estimates now cost epsilon = {eps:.4g}"
            + (f", delta = {dlt:.2g}" if dlt else "")
            + " in all, charged to every release that uses them. The bounds come from OpenDP, "
            "which cannot be seeded: this estimate is kept for the session.")
    _apply(new, dataset, ("success", cost))


def schema_panel(dataset: Dataset) -> PublicSchema:
    """The "Public schema" section of the Data page for ``dataset``; returns the schema in use."""
    key = schema_key(dataset)
    st.subheader("Public schema")
    st.caption(
        "What every release may know about this table without reading its rows: each "
        "column's kind, its bounds or its categories. Releases clip numbers to these bounds "
        "and map other values to '(other)', so one record cannot stretch a range or add a "
        "category. An entry is public (declared by you or shipped with the dataset), paid "
        "(estimated privately with part of epsilon) or read from your data (then releases "
        "that use it are not differentially private)."
    )
    _show_flash()
    _upload(dataset, key)
    schema = current_schema(dataset)
    _status(schema, dataset)
    _editor(schema, dataset, key)
    _confirm_or_estimate(schema, dataset, key)
    _download(schema, dataset, key)
    return schema


def _status(schema: PublicSchema, dataset: Dataset) -> None:
    """Where the schema's entries come from, in one box."""
    read = schema.read_from_data()
    sources = {c.source for c in schema.columns}
    if sources == {"built-in"}:
        st.info(f"**{md(dataset.name)}** ships its schema: bounds and categories from its "
                "generator or its published documentation (the notes say which), never from "
                "its rows.", icon=":material/verified:")
    if read:
        st.warning(
            f"{len(read)} of {len(schema.columns)} entries are {DRAFT_WARNING}. Until then, "
            "every release that uses them says it is not differentially private.",
            icon=":material/warning:",
        )
    else:
        st.success(md(schema.describe()), icon=":material/check_circle:")
    _draft_notes(schema, dataset)


def _names(names: list[str]) -> str:
    """Column names for a message, escaped (user text is never markup)."""
    return ", ".join(f"'{md(c)}'" for c in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")


def _draft_notes(schema: PublicSchema, dataset: Dataset) -> None:
    """What a drafted number and a drafted list with rare values ask of the curator."""
    numbers = [c for c in schema.read_from_data() if schema[c].kind == "numeric"]
    if numbers:
        st.info(f"No public range yet for {_names(numbers)}: the drafted bounds are your data's "
                "exact minimum and maximum, so the table leaves lower and upper empty and "
                "'Confirm' never declares them; type a range known without your data (in the "
                "table or the public ranges below) or estimate it privately.",
                icon=":material/straighten:")
    for name, values in rare_categories(schema, dataset).items():
        shown = ", ".join(f"'{md(v)}'" for v in values[:12]) + (" ..." if len(values) > 12 else "")
        st.warning(f"'{md(name)}' holds values that fewer than {RARE_CATEGORY_RECORDS} records "
                   f"hold ({shown}, shown on this page only): declaring them public publishes "
                   "that those records exist, so a bulk confirm leaves this list out; choose it "
                   "below and tick that its values are public only if they are known without "
                   "your data.", icon=":material/visibility:")


def _editor(schema: PublicSchema, dataset: Dataset, key: str) -> None:
    """The schema as an editable table: an edit declares that entry public knowledge."""
    table = schema_table(schema)
    edited = st.data_editor(
        table,
        key=f"schema_editor_{key}_{schema_version()}",
        hide_index=True,
        width="stretch",
        disabled=["column", "source", "privacy", "note"],
        column_config={
            "kind": st.column_config.SelectboxColumn("kind", options=list(KINDS), required=True),
            "lower": st.column_config.NumberColumn(
                "lower", help="Public lower bound (numeric); empty for a number read from your "
                "data until you type a range (its exact minimum is never shown)"),
            "upper": st.column_config.NumberColumn(
                "upper", help="Public upper bound (numeric); empty for a number read from your "
                "data until you type a range (its exact maximum is never shown)"),
            "categories": st.column_config.TextColumn(
                "categories", help="Public categories, separated by commas (categorical)"),
            "privacy": st.column_config.TextColumn("privacy", help=_PRIVACY_HELP),
        },
    )
    st.caption("Editing a cell declares that entry public knowledge (its source becomes "
               "'declared'): only type what is known without your data (a codebook, a "
               "questionnaire, a published range).")
    try:
        changed = schema.with_edits(edited)
    except (ValueError, TypeError) as exc:
        st.error(md(f"That edit was not applied: {exc}"), icon=":material/error:")
    else:
        if changed is not schema:
            _apply(changed, dataset, ("success", "Your edits are declared public knowledge."))


def _confirm(schema: PublicSchema, dataset: Dataset, picked: list[str], ranges_text: str,
             accepted: list[str]) -> None:
    """Declare the chosen entries (nothing chosen: the bulk rule), in one sentence."""
    if not schema.read_from_data():
        _flash("info", "Nothing to confirm: every entry is already public.")
        st.rerun()
    try:
        ranges = parse_ranges(ranges_text, schema)
        new, sentence = confirm_draft(schema, dataset, picked or None, ranges=ranges, accept_rare=accepted)
    except ValueError as exc:
        st.error(md(f"Nothing was confirmed: {exc}"), icon=":material/error:")
        return
    if new == schema:
        _flash("info", sentence)
        st.rerun()
    _apply(new, dataset, ("success", sentence))


def _confirm_or_estimate(schema: PublicSchema, dataset: Dataset, key: str) -> None:
    """Confirm chosen entries as public knowledge, or estimate them privately with part of epsilon."""
    picked = st.multiselect(
        "Columns to confirm or estimate (none chosen: every entry read from your data; Confirm "
        "then leaves out numbers and rare values)",
        schema.names, key=f"schema_columns_{key}",
    )
    ranges_text = st.text_input(
        "Public ranges (optional): column: lower, upper; ...",
        key=f"schema_ranges_{key}", placeholder="age: 0, 150; income: 0, 10000000",
        help="Ranges anyone knows without your data (ages lie between 0 and 150). 'Confirm' "
        "declares a number read from your data with its range here; an estimate chooses the "
        "private bounds among 1,001 points of the range instead of a grid from -1e9 to 1e9, "
        "which makes them much tighter for the same epsilon.",
    )
    rare = sorted(set(picked) & set(rare_categories(schema, dataset)), key=schema.names.index)
    accepted = rare if rare and st.checkbox(
        f"I know the rare values of {_names(rare)} are public (known without my data)",
        key=f"schema_rare_ok_{key}") else []
    c1, c2 = st.columns(2)
    if c1.button("Confirm as public knowledge", key=f"schema_confirm_{key}",
                 help="You vouch that these bounds and categories are known without your data. "
                 "With nothing chosen: identifier roles and category lists without rare values."):
        _confirm(schema, dataset, picked, ranges_text, accepted)
    epsilon = c2.number_input("epsilon for the estimate", min_value=0.01, max_value=20.0,
                              value=DEFAULT_ESTIMATE_EPSILON, step=0.1, key=f"{EPSILON_KEY}_{key}",
                              help="Split evenly over the estimated columns; every release that "
                              "uses an estimated entry is charged it on top of its own.")
    if c2.button(f"Estimate privately with epsilon = {epsilon:g}", key=f"schema_estimate_{key}",
                 help="Estimating declares each chosen column's kind (number, whole number or category: "
                 "the editor's kind column, drafted from your data) public knowledge: correct a kind "
                 "in the editor first. Only the bounds and categories are estimated."):
        _estimate(dataset, schema, _chosen(schema, picked, estimable=True), float(epsilon), ranges_text)
    st.caption(
        "Estimates: numeric bounds are private 1% and 99% quantiles (OpenDP) over a wide public "
        "grid, categories are the values whose noisy count passes a threshold (a value that "
        "few records hold is left out and becomes '(other)'). With a small table or a small "
        "epsilon the bounds are wide; confirm what you know and estimate only the rest."
    )
    if schema.estimate is not None and len(schema.estimate):
        with st.expander("What the estimates cost"):
            st.dataframe(schema.estimate.to_frame(), hide_index=True, width="stretch")


def _download(schema: PublicSchema, dataset: Dataset, key: str) -> None:
    """The schema as JSON, to upload next time or name in a Compare config."""
    st.download_button(
        "Download the schema (JSON)", data=schema_json(schema),
        file_name=f"{dataset.name}.schema.json", mime="application/json", key=f"schema_download_{key}",
        help="Keep it with your table and upload it next time; Compare configs can name it.",
    )
