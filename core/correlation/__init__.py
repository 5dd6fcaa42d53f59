"""Correlation between records and association between attributes.

- :mod:`core.correlation.maximal_information`: the maximal information coefficient (papers 000 and 003).
- :mod:`core.correlation.records`: record correlation, correlated / group sensitivity and
  data correlation (paper 000, docs/design.md sections 3-4).
- :mod:`core.correlation.kernel`: the thresholded record correlation delta_ij evaluated
  block by block (the kernel under :mod:`core.correlation.records`).
- :mod:`core.correlation.association`: attribute x attribute association (Pearson, NMI, MIC).

The public names are re-exported here, so ``from core.correlation import X`` works.
"""
from core.correlation.association import attribute_association
from core.correlation.maximal_information import mic, mic_pairs
from core.correlation.records import (
    SensitivityReport,
    correlated_sensitivity,
    data_correlation,
    record_correlation,
)

__all__ = [
    "mic",
    "mic_pairs",
    "SensitivityReport",
    "correlated_sensitivity",
    "record_correlation",
    "data_correlation",
    "attribute_association",
]
