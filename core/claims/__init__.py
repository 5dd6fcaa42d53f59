"""A paper's claim and when a number cannot decide it: the :class:`~core.claims.claim.Claim` type
and the degenerate-statistic rules (:mod:`core.claims.degenerate`). Below every paper package
(cdp, imposter, sskm import it; :mod:`core.papers` sits on top of them); imports nothing of the
project's."""
