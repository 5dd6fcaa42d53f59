"""core.claims.claim: a paper's claim checked on our numbers."""
from __future__ import annotations

import pytest

from core.claims.claim import VERDICTS, Claim


def _claim(holds):
    return Claim("Paper 000, Fig. 4", "Proposed above Group.", holds, "Proposed 0.71, Group 0.64.")


@pytest.mark.parametrize("holds, opening", [(True, "Holds here"), (False, "Does not hold here"),
                                            (None, "Cannot be judged here")])
def test_sentence_opens_with_the_verdict(holds, opening):
    assert _claim(holds).sentence() == f"{opening}: Proposed 0.71, Group 0.64."
    assert _claim(holds).verdict == VERDICTS[holds]


def test_to_dict_is_json_ready():
    import json

    d = _claim(True).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["holds"] is True and d["verdict"] == "Holds here"


def test_holds_must_be_a_bool_or_none():
    with pytest.raises(TypeError, match="holds"):
        Claim("f", "p", 1, "x")


def test_an_empty_finding_is_refused():
    with pytest.raises(ValueError, match="finding"):
        Claim("f", "p", True, "  ")


def test_texts_must_be_strings():
    with pytest.raises(TypeError, match="paper"):
        Claim("f", None, True, "x")


def test_check_table_names_the_missing_columns():
    import pandas as pd

    from core.claims.claim import check_table

    frame = pd.DataFrame({"epsilon": [1.0]})
    assert check_table(frame, ["epsilon"]) is frame
    with pytest.raises(ValueError, match=r"summary lacks the column\(s\) \['mse_mean'\]"):
        check_table(frame, ["epsilon", "mse_mean"], name="summary")
    with pytest.raises(TypeError, match="DataFrame"):
        check_table([1], ["epsilon"])
