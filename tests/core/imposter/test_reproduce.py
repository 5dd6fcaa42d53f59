import inspect
import json

import pytest

from core.imposter.reproduce import REPRODUCTIONS
from core.validation import DataError


def test_the_four_reproductions_are_registered():
    assert set(REPRODUCTIONS) == {"imposter-table1", "imposter-table2", "imposter-fig7", "imposter-fig8"}
    for fn in REPRODUCTIONS.values():
        params = inspect.signature(fn).parameters
        assert {"data_dir", "quick", "random_state", "progress"} <= set(params)
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())


@pytest.mark.parametrize("name", sorted(REPRODUCTIONS))
def test_missing_adult_says_where_it_looked(name, tmp_path):
    with pytest.raises(DataError, match="adult"):
        REPRODUCTIONS[name](data_dir=tmp_path, quick=True, random_state=0, progress=lambda m: None)


@pytest.mark.slow
def test_table1_quick_runs_and_is_json(data_dir):
    out = REPRODUCTIONS["imposter-table1"](data_dir=data_dir, quick=True, random_state=0,
                                           progress=lambda m: None)
    json.dumps(out, default=float)
    assert {"parameters", "seeds", "repetitions", "summary", "paper", "notes"} <= set(out)
