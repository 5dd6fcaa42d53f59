"""Marginal-based DP synthesizers (MST, AIM) through OpenDP: the practitioner's peer in Compare.

:mod:`core.marginal.domain` turns the public schema into the finite domain the marginals are
counted over (categories, public cuts, equal-width bins); :mod:`core.marginal.config` chooses
what is measured (the label's 2-way marginals, no one-way marginals, AIM's rounds) from the
schema, n and epsilon alone; :mod:`core.marginal.synthesizer` releases a table with OpenDP
(:class:`MarginalSynthesizer`); :mod:`core.marginal.opendp_fix` works around an OpenDP
rounding bug (opendp#2789) until it is fixed upstream, and OpenDP's slow noise-scale search.
"""
from core.marginal.config import ALGORITHMS, MarginalConfig, marginal_config
from core.marginal.domain import DEFAULT_BINS, MarginalDomain, marginal_domain
from core.marginal.synthesizer import (
           CONTRIBUTIONS,
           MarginalSynthesizer,
           marginal_ledger,
)

__all__ = ["ALGORITHMS", "CONTRIBUTIONS", "DEFAULT_BINS", "MarginalConfig", "MarginalDomain", "MarginalSynthesizer",
           "marginal_config", "marginal_domain", "marginal_ledger"]
