import pytest

from core.data import load_sample


@pytest.fixture(scope="session")
def census():
    """The census sample (3,000 rows, 'sex' sensitive, 'income' label)."""
    return load_sample("census")


@pytest.fixture(scope="session")
def small_census(census):
    """600 rows of it, for fast training tests."""
    return census.sample(600, random_state=1)


