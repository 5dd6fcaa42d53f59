"""Every figure and table of the three papers, and where the dashboard shows it.

One entry per figure or table (:class:`PaperFigure`): the paper, its label as printed,
what it shows, whether it is a result (computed live on the page, with the paper's numbers
or words beside ours and a :class:`core.claims.claim.Claim`) or a description (a diagram, the
notation, the test machine: nothing to compute), the page and the heading it lives under,
and the ``pux reproduce`` name that computes it on the papers' own data.

``tests/core/papers/test_figures.py`` checks that each result's label appears on its page, so
this list cannot drift from the pages; ``docs/figures.md`` prints it.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.validation import check_choice

__all__ = ["PaperFigure", "FIGURES", "PAPERS", "results"]

PAPERS = {
    "000": "CDP-LR with DC-FBFS (correlated differential privacy)",
    "002": "IMPOSTER (implicit privacy)",
    "003": "SSKM_DP (SFLA-Kohonen clustering)",
}


@dataclass(frozen=True)
class PaperFigure:
    """One figure or table of a paper.

    Parameters
    ----------
    paper : str
        "000", "002" or "003".
    label : str
        As printed: "Fig. 1", "Table 2" (paper 002 prints "Figure"; we write "Fig.").
    title : str
        What it shows.
    kind : {"result", "description"}
        A result is computed live; a description has nothing to compute.
    page : str
        The page that shows it, by its address (:data:`dashboard.navigation.PAGES`) ("" for a description
        with no place in the app).
    reproduction : str
        The ``pux reproduce`` name that runs it on the paper's data ("" if none).
    note : str
        Where on the page, or why it has no computation.
    """

    paper: str
    label: str
    title: str
    kind: str
    page: str
    reproduction: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        check_choice(self.paper, sorted(PAPERS), name="paper")
        if self.kind not in ("result", "description"):
            raise ValueError(f"kind must be 'result' or 'description', got {self.kind!r}.")
        if self.kind == "result" and not self.page:
            raise ValueError(f"{self.paper} {self.label}: a result needs the page that shows it.")


_F = PaperFigure
FIGURES: tuple[PaperFigure, ...] = (
    # ---------------------------------------------------------------- paper 000
    _F("000", "Fig. 1", "Data correlation C(x) against the number of features", "result",
       "dc_fbfs", "cdp-fig1"),
    _F("000", "Fig. 2", "Change of C(x) when each feature is deleted, and random-forest importance",
       "result", "dc_fbfs", "cdp-table2"),
    _F("000", "Fig. 3", "Accuracy of the forward and backward traversals", "result", "dc_fbfs",
       "cdp-table2"),
    _F("000", "Table 1", "Number of features deleted at each stage of DC-FBFS", "result", "dc_fbfs",
       "cdp-table2"),
    _F("000", "Table 2", "GS, CS and GDP-LR / CDP-LR accuracy after each selection stage", "result",
       "dc_fbfs", "cdp-table2"),
    _F("000", "Table 3", "The noise methods of CDP-LR", "description", "cdp_lr", "",
       "The noise-method menu of the CDP-LR page lists them, with what each guarantees."),
    _F("000", "Fig. 4", "Accuracy vs epsilon: Non-private, Group, Zhang and Proposed", "result",
       "cdp_lr", "cdp-fig4"),
    _F("000", "Fig. 5", "Accuracy vs epsilon of the noise methods", "result", "cdp_lr", "cdp-fig5"),
    _F("000", "Fig. 6", "Count-query MAE vs epsilon: Group, Zhang and Proposed", "result",
       "publishing", "cdp-fig6"),
    _F("000", "Fig. 7", "Count-query MAE with and without the product columns", "result",
       "publishing", "cdp-fig6"),
    _F("000", "Fig. 8", "Count-query MAE with Pearson vs Mahalanobis record correlation", "result",
       "publishing", "cdp-fig8"),
    # ---------------------------------------------------------------- paper 002
    _F("002", "Fig. 1", "An illustration of k-ary randomized response (kRR)", "description", "imposter",
       "", "A diagram; kRR is the baseline of section 4 on the page, with its privacy audit."),
    _F("002", "Fig. 2", "The structure of a GAN", "description", "", "", "A diagram."),
    _F("002", "Fig. 3", "Explicit and implicit privacy: the retailer scenario", "description", "", "",
       "An illustration; the Tour's IMPOSTER story tells the same story on the census sample."),
    _F("002", "Fig. 4", "The IMPOSTER framework: detection and protection modules", "description",
       "imposter", "", "The page follows it: 1 Detection, 2 Protection."),
    _F("002", "Fig. 5", "An illustration of implicit privacy detection", "description", "imposter", "",
       "A diagram of Algorithm 1; the page's Detection step computes it."),
    _F("002", "Fig. 6", "NMI between each attribute and the sensitive one", "result", "imposter",
       "imposter-table1"),
    _F("002", "Table 1", "Five classifiers in settings A (real) and B (synthetic)", "result", "imposter",
       "imposter-table1"),
    _F("002", "Fig. 7", "kRR on the implicit attributes, epsilon 1 to 100, beside IMPOSTER", "result",
       "imposter", "imposter-fig7"),
    _F("002", "Table 2", "XGBoost in settings A and B for each NMI threshold theta", "result", "imposter",
       "imposter-table2"),
    _F("002", "Fig. 8", "Setting B as the weight lambda of D2 grows", "result", "imposter", "imposter-fig8"),
    # ---------------------------------------------------------------- paper 003
    _F("003", "Table 1", "Related clustering-based DP publishing methods", "description", "", "",
       "A survey table."),
    _F("003", "Fig. 1", "The SOM (Kohonen network) structure", "description", "sskm", "",
       "A diagram; the SOM grid tab draws the trained map."),
    _F("003", "Fig. 2", "The shuffled frog leaping algorithm", "description", "sskm", "",
       "A diagram; the Training tab draws the SFLA's convergence."),
    _F("003", "Table 2", "Comparison of correlation coefficients (Pearson, Spearman, MI, MIC)", "description", "", "",
       "A survey table; the Connections tab computes MIC."),
    _F("003", "Fig. 3", "The SSKM_DP publishing framework", "description", "", "", "A diagram."),
    _F("003", "Fig. 4", "Detailed flow chart of SSKM_DP", "description", "", "",
       "A flow chart (the text once cites it for the MSE results of Fig. 5)."),
    _F("003", "Table 3", "The experimental environment", "description", "", "", "The test machine."),
    _F("003", "Table 4", "The datasets (NLTCS, Adult)", "description", "data", "",
       "The Data page describes whatever table is loaded."),
    _F("003", "Fig. 5", "Information loss (MSE; the caption says SSE) of SSKM_DP across epsilon, m and the number of clusters a", "result", "sskm",
       "sskm-fig5"),
    _F("003", "Fig. 6", "Record linkage of SSKM_DP across epsilon, m and a", "result", "sskm", "sskm-fig6"),
    _F("003", "Fig. 7", "MSE vs a at epsilon 1: MDAV, IDP-KMeans, MDAV_DP and SSKM_DP", "result", "sskm",
       "sskm-fig7"),
)


def results(paper: str | None = None) -> tuple[PaperFigure, ...]:
    """The figures and tables that are results (of one paper, or all)."""
    return tuple(f for f in FIGURES if f.kind == "result" and (paper is None or f.paper == paper))
