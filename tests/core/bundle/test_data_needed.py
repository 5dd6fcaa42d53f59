"""What data a bundle's rerun needs, from its config's dataset name alone (issue 39)."""
from __future__ import annotations

import pytest

from core.bundle.data_needed import data_sentence, missing_data


def test_a_sample_needs_nothing():
    assert missing_data("census", bundled=False, given=False, environ={}) is None
    assert "built-in sample 'census'" in data_sentence("census", bundled=False)


def test_an_upload_needs_its_csv_unless_the_bundle_holds_it():
    said = missing_data("csv:mine.csv", bundled=False, given=False, environ={})
    assert said == "This bundle does not hold the data: rerun with --data PATH, the CSV it was made from (mine.csv)."
    assert missing_data("csv:mine.csv", bundled=True, given=False, environ={}) is None
    assert missing_data("csv:mine.csv", bundled=False, given=True, environ={}) is None


def test_a_public_table_needs_its_folder_or_pux_data_dir():
    assert "--data FOLDER, the folder that holds adult" in missing_data("adult", bundled=False, given=False,
                                                                         environ={})
    assert missing_data("adult", bundled=False, given=False, environ={"PUX_DATA_DIR": "/data"}) is None


def test_a_dataset_that_is_not_text_is_a_type_error():
    with pytest.raises(TypeError):
        data_sentence(3, bundled=False)
