"""Marginal-based DP synthesizers (MST, AIM) through OpenDP: the practitioner's peer in Compare.

:mod:`core.marginal.domain` turns the public schema into the finite domain the marginals are
counted over; :mod:`core.marginal.synthesizer` releases a table with OpenDP's MST or AIM
(:class:`MarginalSynthesizer`); :mod:`core.marginal.opendp_fix` works around an OpenDP
rounding bug (opendp#2789) until it is fixed upstream.
"""
from core.marginal.domain import DEFAULT_BINS, MarginalDomain, marginal_domain
from core.marginal.synthesizer import ALGORITHMS, CONTRIBUTIONS, MarginalSynthesizer, marginal_ledger

__all__ = ["ALGORITHMS", "CONTRIBUTIONS", "DEFAULT_BINS", "MarginalDomain", "MarginalSynthesizer",
           "marginal_domain", "marginal_ledger"]
