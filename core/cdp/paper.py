"""Paper 000's published numbers and words (Liu et al., Computers & Security 2023).

The one source of what the paper says: ``PAPER_FIG1`` .. ``PAPER_FIG8`` (each figure's
claim in words), ``PAPER_TABLE1`` (features deleted at each selection stage),
``PAPER_TABLE2`` (its GS, CS and accuracies) and their sentences. The claim checks
(:mod:`core.cdp.claims`), the reproductions (:mod:`core.cdp.reproduce`) and the pages read
them from here; nothing here computes.
"""
from __future__ import annotations

__all__ = [
    "PAPER_FIG1", "PAPER_FIG2", "PAPER_FIG3", "PAPER_FIG4", "PAPER_FIG5", "PAPER_FIG6", "PAPER_FIG7",
    "PAPER_FIG8", "PAPER_TABLE1", "PAPER_TABLE1_TEXT", "PAPER_TABLE2", "PAPER_TABLE2_TEXT",
]

#: Fig. 1 (section 6.2.1), read from the figure: no numbers are printed
PAPER_FIG1 = ("The data correlation C(x) decreases as features are added consecutively: more features, "
              "less correlated records (read from the figure, no numbers printed).")
#: Fig. 2 (section 6.2.1)
PAPER_FIG2 = ("Ranking the features by the change of C(x) when each is deleted and by random-forest "
              "importance gives two different rankings ('Date of Establishment' changes C(x) most, "
              "'Registered Capital' is the most important).")
#: Fig. 3 (section 6.2.2)
PAPER_FIG3 = ("The traversals find redundant features: the forward traversal filters out 1 removable "
              "feature, the backward traversal 0, 1 or 2.")
#: Table 1: features deleted at each stage, two runs on the paper's 6 supplier attributes
PAPER_TABLE1 = {"F_fb_del": (1, 2), "F_c_del": (3, 3), "F_del": (1, 1)}
#: Table 1 in words
PAPER_TABLE1_TEXT = ("DC-FBFS deletes only the features both criteria call removable: F_fb_del 1 (2 in a "
                     "second run), F_c_del 3, F_del 1 ('Enterprise Type') of 6 features, T_c = 40.")
#: Table 2 in words (its numbers: PAPER_TABLE2)
PAPER_TABLE2_TEXT = ("The correlated sensitivities are all lower than the global sensitivities (CS < GS at "
                     "every stage), so CDP-LR is more accurate than GDP-LR.")
#: Fig. 4, read from the figure
PAPER_FIG4 = ("Proposed above Zhang and Group overall; all three similar for epsilon < 3; "
              "a large gap to Non-private remains (read from the figure, no numbers printed).")
#: Fig. 5
PAPER_FIG5 = ("Method 1 (Laplace on the mean gradient) usually best; 2 below 1; 1 and 5 "
              "close; 4 above 3; 6 worst in most cases.")
#: Fig. 6
PAPER_FIG6 = "Proposed below Group (CS < GS) and below Zhang; MAE falls fast then slowly with epsilon."
#: Fig. 7
PAPER_FIG7 = "With product information the MAE is lower."
#: Fig. 8
PAPER_FIG8 = "Mahalanobis gives lower MAE than Pearson for Zhang's and the proposed scheme."
#: Table 2 on the paper's supplier data (6 attributes): GS, CS and the accuracies after each stage
PAPER_TABLE2 = {
    "none": {"GS": 45.86, "CS": 20.55, "GDP-LR": 0.4997, "CDP-LR": 0.5009},
    "F_fb_del": {"GS": 49.53, "CS": 43.06, "GDP-LR": 0.4895, "CDP-LR": 0.4974},
    "F_c_del": {"GS": 41.84, "CS": 39.18, "GDP-LR": 0.4945, "CDP-LR": 0.5018},
    "F_del": {"GS": 45.86, "CS": 21.64, "GDP-LR": 0.4991, "CDP-LR": 0.5060},
}
