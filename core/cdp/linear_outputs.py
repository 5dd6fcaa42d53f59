"""What a fitted binary linear model answers, shared by CDP-LR and the DP-SGD baseline.

:class:`BinaryLinearOutputs` turns a model's ``decision_function`` and ``classes_`` into the
posterior, the prediction and the accuracy (scikit-learn's classifier methods), and splits a
trained weight vector into ``coef_`` and ``intercept_``. Nothing here draws noise or reads
the budget: it is post-processing of released weights.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

__all__ = ["BinaryLinearOutputs"]


class BinaryLinearOutputs:
    """Posterior, prediction and accuracy of a fitted binary linear model from its
    ``decision_function`` and ``classes_``, and the split of its trained vector into
    ``coef_`` and ``intercept_`` (CDP-LR and the DP-SGD baseline share them)."""

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior (Eq. 6-7): columns P(classes_[0]), P(classes_[1])."""
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """classes_[1] where the posterior is at least 0.5."""
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy (Eq. 21): share of rows whose predicted class is ``y``.

        Computed directly (sklearn's ``accuracy_score`` validation costs more than the fit
        on small data, and the dashboard scores on every slider move).
        """
        y = np.asarray(y)
        hit = (self.predict(X) == y).astype(float)
        if sample_weight is None:
            return float(hit.mean())
        return float(np.average(hit, weights=np.asarray(sample_weight, dtype=float)))

    def _set_weights(self, w: np.ndarray) -> None:
        """``coef_``, ``intercept_`` and ``n_features_in_`` from the trained vector ``w``
        (its last entry is the bias when ``fit_intercept``)."""
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[None, :-1], w[-1:]
        else:
            self.coef_, self.intercept_ = w[None, :], np.zeros(1)
        self.n_features_in_ = self.coef_.shape[1]
