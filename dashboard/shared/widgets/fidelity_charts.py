"""Real against release, seen: pure chart builders every page that releases a table shares.

- :func:`column_overlay`: one column of the real table and of the release, overlaid (shares
  per bin or per category), its column-shape score in the title;
- :func:`association_difference`: the pairwise association of the real table minus the
  release's (Pearson r, or Cramer's V where a category is involved) as a heatmap;
- :func:`sampled`: both tables cut to at most :data:`SAMPLE_ROWS` rows (seeded), as the page
  section and the report score them.

The scores come from :mod:`core.evaluation.fidelity` (SDMetrics' definitions). Both charts
read the private table: they are evaluation on the page and in the report, never released.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.data.dataset import is_quantity
from core.evaluation.fidelity import BINS, capped, column_shape, pair_trends
from dashboard.shared.widgets.charts import number, plotly_text

__all__ = ["SAMPLE_ROWS", "association_difference", "column_overlay", "overlay_data", "sampled"]

#: the two sides, in the order and colours of every overlay
SIDES = {"real": "#1f77b4", "release": "#ff7f0e"}
#: categories drawn per column (the rest grouped as "(other values)")
TOP_CATEGORIES = 20
#: rows of each side read at most (a seeded sample above it)
SAMPLE_ROWS = 5_000
#: the seed of that sample (a display choice: the same rows every time)
SAMPLE_SEED = 0


def sampled(real: pd.DataFrame, release: pd.DataFrame, *, rows: int = SAMPLE_ROWS,
            seed: int = SAMPLE_SEED) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables with at most ``rows`` rows each (:func:`core.evaluation.fidelity.capped`: a
    seeded sample; the same positions on both sides when they have as many rows, so an aligned
    release equal to the real table still scores 1), their index reset."""
    return capped(real, release, max_rows=rows, random_state=seed)


def overlay_data(real: pd.Series, release: pd.Series) -> pd.DataFrame:
    """The table an overlay draws: ``value`` (a bin or a category), ``real`` and ``release``
    (the share of each side's rows in it)."""
    if is_quantity(real) and is_quantity(release):
        values = pd.to_numeric(real, errors="coerce").dropna().to_numpy(dtype=float)
        inner = np.histogram_bin_edges(values if len(values) else [0.0, 1.0], bins=2 * BINS)[1:-1]
        edges = np.concatenate([[-np.inf], inner, [np.inf]])
        labels = ([f"below {number(inner[0])}"] + [f"{number(a)} to {number(b)}" for a, b in zip(inner, inner[1:])]
                  + [f"{number(inner[-1])} and above"])
        shares = {side: pd.cut(pd.to_numeric(col, errors="coerce"), edges, labels=labels, right=False)
                  .value_counts(normalize=True, sort=False) for side, col in (("real", real), ("release", release))}
        return pd.DataFrame({"value": labels, "real": shares["real"].to_numpy(),
                             "release": shares["release"].to_numpy()})
    keys = {side: col.astype(object).where(col.notna(), "(missing)") for side, col in
            (("real", real), ("release", release))}
    shares = {side: k.value_counts(normalize=True) for side, k in keys.items()}
    order = list(shares["real"].index[:TOP_CATEGORIES])
    order += [v for v in shares["release"].index if v not in order][:max(TOP_CATEGORIES - len(order), 0)]
    frame = pd.DataFrame({side: s.reindex(order, fill_value=0.0).to_numpy() for side, s in shares.items()})
    frame.insert(0, "value", [str(v) for v in order])
    rest = {side: 1.0 - frame[side].sum() for side in SIDES}
    if max(rest.values()) > 1e-12:
        frame.loc[len(frame)] = ["(other values)", rest["real"], rest["release"]]
    return frame


def column_overlay(real: pd.Series, release: pd.Series, *, column: str, dataset: str = "") -> go.Figure:
    """One column, real and release overlaid as shares of their rows, the column-shape score
    (KSComplement or TVComplement, 1 = the same distribution) in the title."""
    data = overlay_data(real, release)
    score = column_shape(real, release)
    fig = go.Figure([go.Bar(x=data["value"], y=data[side], name=side, marker_color=color, opacity=0.75)
                     for side, color in SIDES.items()])
    metric = "KSComplement" if is_quantity(real) and is_quantity(release) else "TVComplement"
    where = f" on {plotly_text(dataset)}" if dataset else ""
    fig.update_layout(title=dict(text=f"{plotly_text(column)}: real against release{where}",
                                 subtitle=dict(text=f"column shape ({metric}) {_value(score)}; "
                                                    "1 = the same distribution")),
                      barmode="group", xaxis_title=plotly_text(column), yaxis_title="share of rows",
                      legend_title_text="table", margin=dict(l=10, r=10, t=70, b=10))
    return fig


def _value(x: float) -> str:
    """A score or an association to 3 decimals; "undefined" for NaN (a constant column)."""
    return "undefined" if pd.isna(x) else f"{x:.3f}"


def association_difference(real: pd.DataFrame, release: pd.DataFrame, *, dataset: str = "",
                           trends: pd.DataFrame | None = None) -> go.Figure:
    """The pairwise association of the real table minus the release's, as a heatmap (0: the
    release keeps the pair's association; red: it lost some; blue: it made one up). Pearson r
    for two numeric columns, Cramer's V otherwise; the pair-trend score is in the hover.
    ``trends``: :func:`core.evaluation.fidelity.pair_trends` of the two tables when already
    computed (it is the costly part), else computed here."""
    trends = pair_trends(real, release) if trends is None else trends
    names = list(dict.fromkeys([*trends["left"], *trends["right"]]))
    grid = pd.DataFrame(np.nan, index=names, columns=names)
    hover = pd.DataFrame("", index=names, columns=names)
    for row in trends.itertuples(index=False):
        text = (f"{row.left} / {row.right}<br>real {_value(row.real)}, release {_value(row.release)}"
                f"<br>{row.metric} {_value(row.score)}")
        for a, b in ((row.left, row.right), (row.right, row.left)):
            grid.loc[a, b] = row.difference
            hover.loc[a, b] = text
    limit = float(np.nanmax(np.abs(grid.to_numpy()))) if np.isfinite(grid.to_numpy()).any() else 1.0
    labels = [plotly_text(n) for n in names]
    fig = go.Figure(go.Heatmap(z=grid.to_numpy(), x=labels, y=labels, text=hover.to_numpy(),
                               hovertemplate="%{text}<extra></extra>", colorscale="RdBu_r",
                               zmin=-max(limit, 0.05), zmax=max(limit, 0.05),
                               colorbar=dict(title="real - release")))
    mean = trends["score"].mean()
    where = f" on {plotly_text(dataset)}" if dataset else ""
    fig.update_layout(title=dict(text=f"Pairwise association: real minus release{where}",
                                 subtitle=dict(text=f"mean pair trend {_value(mean)}; 1 = every pair kept")),
                      xaxis_title="column", yaxis_title="column", yaxis_autorange="reversed", plot_bgcolor="white",
                      margin=dict(l=10, r=10, t=70, b=10))
    return fig
