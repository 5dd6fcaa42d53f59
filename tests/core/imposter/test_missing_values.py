"""IMPOSTER's Table 1 and kRR comparison on a table with missing values (issue 39): a missing
value in any column -- a feature, the sensitive attribute or the label -- never reaches
scikit-learn as NaN."""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.evaluation.classifiers import MISSING_TEXT, as_text
from core.imposter.evaluation import evaluate_settings
from core.imposter.krr_baseline import krr_sweep

IMPLICIT = ["job", "hours"]


def _holed(n: int = 300, share: float = 0.1, seed: int = 0) -> pd.DataFrame:
    """A small census-like table (s leaks through 'job'), ``share`` of the cells of every
    column but one missing."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], size=n)
    frame = pd.DataFrame({
        "age": rng.integers(18, 80, size=n).astype(float),
        "job": np.where(rng.random(n) < 0.8, np.where(sex == "F", "care", "craft"), "sales"),
        "hours": rng.normal(40, 8, size=n).round(),
        "school": rng.choice(["HS", "BA", "MA"], size=n),
        "sex": sex,
        "income": rng.choice(["<=50K", ">50K"], size=n, p=[0.7, 0.3]),
    })
    frame["income"] = frame["income"].astype("str")
    for col in ["age", "job", "hours", "sex", "income"]:
        frame.loc[rng.random(n) < share, col] = np.nan
    return frame


def test_as_text_reads_a_missing_value_as_a_category_of_its_own():
    text = as_text(pd.Series(["a", np.nan, None, "b"], dtype="str"))
    assert text.tolist() == ["a", MISSING_TEXT, MISSING_TEXT, "b"]
    assert text.notna().all()


def test_table1_scores_a_table_with_missing_values_in_every_role():
    real, synthetic = _holed(seed=0), _holed(seed=1)
    table = evaluate_settings(real, synthetic, sensitive="sex", label="income", implicit=IMPLICIT,
                              classifiers=["lr"], random_state=0)
    assert table[[("A", "sensitive", "accuracy"), ("B", "label", "accuracy")]].notna().all().all()


def test_krr_comparison_runs_on_a_table_with_missing_values():
    curve = krr_sweep(_holed(), sensitive="sex", label="income", implicit=IMPLICIT, epsilons=(1.0,),
                      classifier="lr", random_state=0)
    assert curve[["sensitive_accuracy", "label_accuracy"]].notna().all().all()
