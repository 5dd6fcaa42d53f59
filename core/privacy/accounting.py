"""Privacy-loss-distribution accounting through dp-accounting, in one place.

CDP-LR's noise method 7 and the DP-SGD baseline both calibrate a Gaussian noise multiplier
with dp-accounting's ``PLDAccountant`` and record what it reports. Each keeps its own DP
event (a composed Gaussian; a composed Poisson-sampled Gaussian) and its own search
bracket; the accountant, its discretisation and the calibration call are these.
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["PLD_DISCRETIZATION", "pld_accountant", "pld_epsilon", "pld_calibrate"]

#: Discretisation of the privacy-loss distribution (dp-accounting defaults to 1e-4; 1e-3
#: gives the same sigma to a relative 1e-6 here, ten times faster). The accountant rounds
#: pessimistically, so a coarser grid only loosens the bound; it never breaks it.
PLD_DISCRETIZATION = 1e-3


def pld_accountant(replace_one: bool) -> Any:
    """A fresh PLD accountant under REPLACE_ONE (``replace_one``) or ADD_OR_REMOVE_ONE."""
    from dp_accounting import NeighboringRelation
    from dp_accounting.pld.pld_privacy_accountant import PLDAccountant

    relation = NeighboringRelation.REPLACE_ONE if replace_one else NeighboringRelation.ADD_OR_REMOVE_ONE
    return PLDAccountant(relation, value_discretization_interval=PLD_DISCRETIZATION)


def pld_epsilon(event: Any, delta: float, *, replace_one: bool) -> float:
    """The accountant's epsilon at ``delta`` after composing ``event`` (an upper bound)."""
    return float(pld_accountant(replace_one).compose(event).get_epsilon(float(delta)))


def pld_calibrate(make_event: Callable[[float], Any], epsilon: float, delta: float, *, replace_one: bool,
                  lo: float, hi: float, tol: float) -> float:
    """The smallest noise multiplier in ``[lo, hi]`` (to ``tol``, rounded up by the library)
    whose event ``make_event(z)`` the accountant reports at most ``epsilon`` at ``delta``
    (dp-accounting's ``calibrate_dp_mechanism``)."""
    from dp_accounting import ExplicitBracketInterval, calibrate_dp_mechanism

    return float(calibrate_dp_mechanism(lambda: pld_accountant(replace_one), make_event, epsilon, delta,
                                        bracket_interval=ExplicitBracketInterval(lo, hi), tol=tol))
