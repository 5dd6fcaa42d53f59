"""Paper 003's own numbers and claims: the setting of its section 6 and what Fig. 5, 6 and 7 say.

The reproductions (:mod:`core.sskm.reproduce`), the claims judged on our numbers
(:mod:`core.sskm.claims`) and the page read these; nothing here computes. What the paper
leaves open (which attributes, which NLTCS attribute is sensitive, the SOM size, the range
of a) is chosen in :mod:`core.sskm.reproduce`.
"""
from __future__ import annotations

__all__ = ["EPSILONS", "M_VALUES", "REPETITIONS", "PAPER"]

#: the budgets of Fig. 5-7 (section 6)
EPSILONS = (0.05, 0.1, 1.0, 5.0)
#: the numbers of attributes published
M_VALUES = (5, 10)
#: repetitions of every setting
REPETITIONS = 20

#: each figure's claim, in the paper's words (quoted beside our results)
PAPER = {
    "sskm-fig5": "Adult: MSE of SSKM_DP decreases as epsilon grows from 0.05 to 5, for m = 5 and 10; "
                 "it changes little with the number of clusters a.",
    "sskm-fig6": "Adult: at epsilon 0.05 and 0.1 RL hardly changes with m or a; at epsilon 5 RL rises "
                 "with a; epsilon = 1 protects much better than 5 (chosen as the best trade-off).",
    "sskm-fig7": "Adult and NLTCS, epsilon = 1, m = 5 and 10: the MSE of MDAV, IDP-KMeans and MDAV_DP "
                 "falls as a grows while SSKM_DP stays flat, and SSKM_DP's MSE is below all three for "
                 "every a.",
}
