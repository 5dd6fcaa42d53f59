import pytest

from core.metrics import accuracy, f1, majority_share


def test_accuracy_and_f1():
    assert accuracy([1, 0, 1, 1], [1, 0, 0, 1]) == 0.75
    assert f1([1, 0, 1, 1], [1, 0, 0, 1]) == pytest.approx(0.8)


def test_f1_on_string_labels_uses_the_last_class_as_positive():
    assert f1(["<=50K", ">50K", ">50K"], ["<=50K", ">50K", "<=50K"]) == pytest.approx(2 / 3)


def test_majority_share():
    assert majority_share(["a", "a", "b", "a"]) == 0.75
