"""Paper 000: correlated differential privacy for logistic regression (CDP-LR) with DC-FBFS
feature selection, and count-query publishing (Liu et al., Computers & Security 2023)."""
from core.cdp.baselines import (
    ALL_SCHEMES,
    DP_SCHEME,
    SCHEMES,
    method_curve,
    prepare_schemes,
    scheme_curve,
)
from core.cdp.dc_fbfs import DCFBFSResult, dc_fbfs
from core.cdp.dp_reading import DPReading, dp_reading, group_bound, schema_matrix
from core.cdp.logistic import CDPLogisticRegression
from core.cdp.publishing import dp_count_release, mae_curve, prepare_publishing
from core.cdp.queries import random_range_queries, schema_range_queries
from core.cdp.schedule import NOISE_METHODS, PRESETS, auto_noise_method, auto_schedule
from core.cdp.sensitivity import dataset_sensitivity, record_matrix
from core.evaluation.metrics import count_query_mae

__all__ = [
    "dc_fbfs",
    "DCFBFSResult",
    "CDPLogisticRegression",
    "auto_noise_method",
    "auto_schedule",
    "NOISE_METHODS",
    "PRESETS",
    "SCHEMES",
    "ALL_SCHEMES",
    "DP_SCHEME",
    "dp_reading",
    "DPReading",
    "group_bound",
    "schema_matrix",
    "dp_count_release",
    "schema_range_queries",
    "prepare_schemes",
    "scheme_curve",
    "method_curve",
    "prepare_publishing",
    "random_range_queries",
    "mae_curve",
    "count_query_mae",
    "record_matrix",
    "dataset_sensitivity",
]
