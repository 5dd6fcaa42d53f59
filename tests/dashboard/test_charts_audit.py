"""The audit chart (dashboard.charts.audit) and the markdown escape (dashboard.safe)."""
from __future__ import annotations

import math

from dashboard.charts.audit import audit_interval
from dashboard.safe import md


def test_audit_chart_marks_the_claim_and_the_measured_interval():
    fig = audit_interval(claimed=1.0, lower=0.4, point=0.7)
    assert fig.layout.title.text == "Privacy audit: claimed vs measured epsilon"
    assert list(fig.data[0].x) == [0.4, 0.7]
    assert fig.layout.shapes[0].x0 == 1.0
    assert fig.data[0].line.color == "#2ca02c"


def test_audit_chart_labels_the_claim_and_spans_every_value():
    fig = audit_interval(claimed=2.0, lower=0.4, point=3.0)
    assert [a.text for a in fig.layout.annotations] == ["claimed epsilon = 2"]
    assert (fig.layout.shapes[0].x0, fig.layout.shapes[0].x1) == (2.0, 2.0)
    assert tuple(fig.layout.xaxis.range) == (0, 3.0 * 1.25)  # the largest value, and a margin
    assert fig.layout.xaxis.title.text == "epsilon (privacy loss)"
    assert fig.data[0].name == "measured: 95% lower bound to point estimate"


def test_audit_chart_is_red_for_a_violation():
    assert audit_interval(claimed=1.0, lower=2.5, point=3.0).data[0].line.color == "#d62728"


def test_audit_chart_without_a_claim_says_so():
    fig = audit_interval(claimed=math.inf, lower=4.0, point=math.inf)
    assert not fig.layout.shapes
    assert "no epsilon claimed" in fig.layout.annotations[0].text
    assert list(fig.data[0].x) == [4.0, 4.0 * 1.25]  # an infinite estimate drawn at the axis end
    assert fig.data[0].line.color == "#2ca02c"  # no claim, so nothing to violate


def test_md_escapes_an_image_link():
    assert md("![x](http://evil)") == r"\!\[x\]\(http\://evil\)"
