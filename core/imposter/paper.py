"""Paper 002's numbers and claims, as printed: Tables 1 and 2, Fig. 7 and Fig. 8.

The one source of what the paper reports on UCI Adult (``sex``, "gender", explicit; ``income``
the label): the reproductions (:mod:`core.imposter.reproduce`) print them beside ours, the
claim checks (:mod:`core.imposter.claims`) quote their words, and the page draws them.
"""
from __future__ import annotations

__all__ = ["PAPER_TABLE1", "PAPER_TABLE2", "PAPER_FIG7", "PAPER_FIG8", "PAPER_CLAIMS"]

#: Table 1 of the paper (theta = 0.01, lambda = 1): accuracy, F1 per setting and task.
PAPER_TABLE1 = {
    "XGBoost": {"A_sensitive": (0.8455, 0.8266), "A_label": (0.8331, 0.7567), "B_sensitive": (0.6440, 0.4444), "B_label": (0.8326, 0.7298)},
    "GBDT": {"A_sensitive": (0.8439, 0.8269), "A_label": (0.8320, 0.7538), "B_sensitive": (0.6726, 0.4021), "B_label": (0.8229, 0.7176)},
    "RF": {"A_sensitive": (0.8426, 0.8221), "A_label": (0.8319, 0.7564), "B_sensitive": (0.6509, 0.4414), "B_label": (0.8295, 0.7349)},
    "MLP": {"A_sensitive": (0.8448, 0.8237), "A_label": (0.8311, 0.7648), "B_sensitive": (0.6732, 0.5417), "B_label": (0.8324, 0.7169)},
    "LR": {"A_sensitive": (0.8474, 0.8301), "A_label": (0.8332, 0.7532), "B_sensitive": (0.6732, 0.4024), "B_label": (0.8138, 0.7030)},
}
#: Table 2 (XGBoost): theta -> accuracy, F1 per setting and task.
PAPER_TABLE2 = {
    0.002: {"A_sensitive": (0.8521, 0.8347), "A_label": (0.8415, 0.7693), "B_sensitive": (0.6549, 0.4566), "B_label": (0.8377, 0.7564)},
    0.01: {"A_sensitive": (0.8455, 0.8266), "A_label": (0.8331, 0.7567), "B_sensitive": (0.6440, 0.4444), "B_label": (0.8326, 0.7298)},
    0.02: {"A_sensitive": (0.8424, 0.8237), "A_label": (0.8257, 0.7441), "B_sensitive": (0.6524, 0.4464), "B_label": (0.8227, 0.7205)},
    0.1: {"A_sensitive": (0.8021, 0.7668), "A_label": (0.7771, 0.6401), "B_sensitive": (0.6615, 0.4443), "B_label": (0.7687, 0.5733)},
}
#: Section 5.6: at the kRR budget where gender accuracy is 0.6891, income accuracy is
#: 0.7517; IMPOSTER (GBDT, setting B) has 0.6726 and 0.8229.
PAPER_FIG7 = {"krr_gender_accuracy": 0.6891, "krr_income_accuracy": 0.7517,
              "imposter_gender_accuracy": 0.6726, "imposter_income_accuracy": 0.8229,
              "epsilons": "1 to 100"}
PAPER_FIG8 = ("Fig. 8 (XGBoost, setting B): gender accuracy falls as lambda grows from 0 and "
              "fluctuates below about 0.67 from lambda near 1; income accuracy and F1 stay "
              "roughly level (the figure gives no table of values).")

#: The paper's claim in words for each figure and table (what :mod:`core.imposter.claims`
#: checks on our data; the page's claim boxes and the reproductions' summaries quote them).
PAPER_CLAIMS = {
    "Fig. 6": ("Fig. 6 (Adult, gender explicit, theta = 0.01): the NMI of each attribute with gender "
               "ranks what leaks it; the attributes that reach theta are the implicit-privacy candidates."),
    "Table 1": ("Table 1 (theta = 0.01, lambda = 1): on IMPOSTER's synthetic data (setting B) every "
                "classifier predicts gender far worse than on the real data (accuracy 0.84 in A, "
                "0.64-0.67 in B, about the majority share), while income accuracy decreases only "
                "slightly (0.81-0.83 in B against 0.83 in A)."),
    "Fig. 7": ("Section 5.6 (GBDT): where kRR's gender accuracy (0.6891) is about IMPOSTER's (0.6726), "
               "kRR's income accuracy is only 0.7517 against IMPOSTER's 0.8229: the same privacy "
               "with better utility."),
    "Table 2": ("Table 2 (XGBoost): a lower theta makes more attributes implicit; in setting B gender "
                "accuracy stays below 0.67 for every theta; accuracy falls as theta grows to 0.1 "
                "(income in B 0.8377 at theta = 0.002, 0.7687 at 0.1)."),
    "Fig. 8": PAPER_FIG8,
}
