"""Paper 000: correlated differential privacy for logistic regression (CDP-LR) with DC-FBFS
feature selection, and count-query publishing (Liu et al., Computers & Security 2023)."""
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.logistic import NOISE_METHODS, CDPLogisticRegression
from core.cdp.sensitivity import dataset_sensitivity, record_matrix

__all__ = [
    "dc_fbfs",
    "DCFBFSResult",
    "CDPLogisticRegression",
    "NOISE_METHODS",
    "record_matrix",
    "dataset_sensitivity",
]
