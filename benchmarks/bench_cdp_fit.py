"""CDP-LR fit (100 full-batch epochs, sensitivity given) vs scikit-learn LogisticRegression on Adult.

Targets (issue 3): <= 0.2x sklearn's time on the 104-column one-hot matrix and <= 1x on
the 14-column ordinal one. Without the Adult files, the supplier sample stands in (noted).
"""
from __future__ import annotations


from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from core.cdp.logistic import CDPLogisticRegression
from core.data import encode
from benchmarks.timing import adult_or_supplier, best_of


def run(*, quick: bool = False) -> dict:
    ds, source = adult_or_supplier(quick_rows=5000 if quick else None)
    y = ds.frame[ds.label].astype(str).to_numpy()
    repeats = 2 if quick else 5
    out = {"dataset": source, "rows": ds.n_rows, "epochs": 100, "repeats": repeats}
    for name, X in (
        ("one_hot", encode(ds, scale="standard", one_hot=True).X),
        ("ordinal", encode(ds, scale="standard", one_hot=False).X),
    ):
        model = CDPLogisticRegression(epsilon=1.0, noise_method=1, sensitivity=40.0, epochs=100,
                                      learning_rate=1.0, random_state=0)
        t_ours = best_of(lambda: model.fit(X, y), repeats)
        t_sk = best_of(lambda: LogisticRegression(max_iter=1000).fit(X, y), repeats)
        with threadpool_limits(limits=1, user_api="blas"):  # sklearn without BLAS threads too
            t_sk1 = best_of(lambda: LogisticRegression(max_iter=1000).fit(X, y), repeats)
        out[name] = {
            "columns": X.shape[1],
            "cdp_lr_seconds": t_ours,
            "sklearn_seconds": t_sk,
            "sklearn_one_blas_thread_seconds": t_sk1,
            "time_ratio_vs_sklearn": t_ours / t_sk,
            "time_ratio_vs_sklearn_one_blas_thread": t_ours / t_sk1,
            "target_ratio": 0.2 if name == "one_hot" else 1.0,
        }
    return out
