"""The pure parts of ``benchmarks/bench_present.py`` (issue 41, item 4): the page list, the
targets, the table and the warm-up's signal. No server, no browser: the benchmark itself runs
with ``python -m benchmarks --only present``."""
from __future__ import annotations

import json

from benchmarks import bench_present as bench
from dashboard.navigation import DEFAULT_PAGE, PAGES


def _rec(page, *, dataset=bench.SAMPLE, phase="cold", mode="normal", chart=1.0, done=2.0, top=300,
         chart_expected=True, **extra) -> dict:
    rec = {"page": page, "dataset": dataset, "phase": phase, "mode": mode, "cap_s": 120.0,
           "chart_expected": chart_expected, "first_chart_s": chart, "done_s": done,
           "first_chart_status": "ok" if chart is not None else "timeout",
           "done_status": "ok" if done is not None else "timeout", "chart_top_px": top if chart is not None else None}
    rec.update(extra)
    return rec


def _warm_all(**over) -> list[dict]:
    return [_rec(p, phase="warm", **over.get(p, {})) for p in PAGES]


def test_every_page_of_the_navigation_in_order_with_its_url_path():
    pages = bench.page_list()
    assert [p["name"] for p in pages] == list(PAGES)
    assert all(p["title"] == PAGES[p["name"]].title for p in pages)
    # the default page answers at / only: /data is "Page not found"
    assert {p["name"]: p["path"] for p in pages}[DEFAULT_PAGE] == ""
    assert all(p["path"] == p["name"] for p in pages if p["name"] != DEFAULT_PAGE)


def test_markers_name_the_tour_first_step_without_a_chart():
    tour = bench.page_marker("tour")
    assert tour["chart"] is False and "h2" in tour["needs"]
    assert all(bench.page_marker(name)["chart"] for name in PAGES if name != "tour")


def test_main_seconds_is_the_chart_or_for_a_chartless_view_the_end():
    assert bench.main_seconds(_rec("compare", chart=3.0, done=9.0)) == 3.0
    assert bench.main_seconds(_rec("tour", chart=None, done=4.0, chart_expected=False)) == 4.0
    assert bench.main_seconds(_rec("compare", chart=None, done=None)) is None


def test_targets_pass_when_every_figure_is_within_its_limit():
    records = [_rec("compare", chart=8.0, top=380), _rec("compare", mode="present", chart=9.9)] + _warm_all(
        tour={"chart": None, "done": 4.5, "chart_expected": False})
    t = bench.targets(records, {"within_5_min": True})
    assert t["compare_first_chart_cold_sample_within_10_s"] is True
    assert t["compare_first_chart_cold_sample_within_10_s_present"] is True
    assert t["warm_main_chart_within_5_s_every_page"] is True
    assert t["compare_chart_top_at_most_400_px"] is True
    assert t["warmup_done_within_5_min"] is True
    assert all(isinstance(v, bool) for v in t.values() if not isinstance(v, dict))


def test_a_timeout_or_a_missing_figure_never_passes():
    records = [_rec("compare", chart=None, done=None)] + _warm_all(sskm={"chart": None, "done": None})
    t = bench.targets(records, {"within_5_min": False})
    assert t["compare_first_chart_cold_sample_within_10_s"] is False
    assert t["warm_main_chart_within_5_s_every_page"] is False
    assert t["warm_main_chart_within_5_s_by_page"]["sskm"] is False
    assert t["warm_main_chart_within_5_s_by_page"]["data"] is True
    assert t["compare_chart_top_at_most_400_px"] is True  # the warm visit drew it at 300 px
    # no chart drawn at all: nothing shows the target holds
    assert bench.targets([_rec("compare", chart=None, done=None)])["compare_chart_top_at_most_400_px"] is False
    assert t["warmup_done_within_5_min"] is False
    assert bench.targets([])["compare_first_chart_cold_sample_within_10_s"] is False


def test_targets_read_the_right_records():
    # an upload or a warm visit does not stand in for Compare cold on the built-in sample
    records = [_rec("compare", chart=30.0), _rec("compare", dataset=bench.UPLOAD, chart=1.0),
               _rec("compare", phase="warm", chart=1.0)]
    assert bench.targets(records)["compare_first_chart_cold_sample_within_10_s"] is False
    # a slow upload does not fail the warm target (uploads are never warm-cached)
    records = _warm_all() + [_rec("sskm", dataset=bench.UPLOAD, phase="warm", chart=40.0)]
    assert bench.targets(records)["warm_main_chart_within_5_s_every_page"] is True
    # the chart's top is read when first drawn and when done: the lower one counts
    assert bench.targets([_rec("compare", top=350, chart_top_px_done=420)])["compare_chart_top_at_most_400_px"] is False
    assert bench.targets([_rec("compare", top=401)])["compare_chart_top_at_most_400_px"] is False


def test_table_shows_a_timeout_as_such_never_as_a_number():
    records = [_rec("compare", chart=None, done=None, cap_s=60.0),
               _rec("tour", chart=None, done=4.25, chart_expected=False, first_chart_status="none drawn"),
               _rec("compare", mode="present", dataset=bench.UPLOAD, phase="warm", chart=2.5, done=7.0,
                    label="upload: never warm-cached", server_cpu_s=3.21)]
    table = bench.markdown_table(records)
    lines = table.splitlines()
    assert lines[0].startswith("| page | data | phase | first chart (s)")
    assert len(lines) == 2 + len(records)
    assert all(line.count("|") == lines[0].count("|") for line in lines)
    assert "| compare | built-in sample | cold | timeout (>60 s) |" in lines[2]
    assert "| - | timeout (>60 s) |" in lines[2]
    assert "| none drawn | - | 4.2 |" in lines[3] or "| none drawn | - | 4.3 |" in lines[3]
    assert lines[4].startswith("| compare (present) | upload | warm | 2.5 | 300 | 7.0 | 3.2 |")
    assert "never warm-cached" in lines[4]
    md = bench.targets_markdown({"a_b": True, "c": False, "by_page": {"x": True}})
    assert md.splitlines() == ["- a b: **pass**", "- c: **FAIL**"]


def test_warmup_status_reads_the_status_file_and_the_stderr_line(tmp_path):
    assert bench.warmup_status(tmp_path) == {"state": None, "seconds": None, "stderr_done_s": None}
    key = tmp_path / "0.1.0-abc123-seed0"
    key.mkdir()
    (key / "status.json").write_text(json.dumps({"state": "running", "seconds": 12.5}))
    got = bench.warmup_status(tmp_path, "noise\npux warm-up done in 81.5 s\n")
    assert got["state"] == "running" and got["seconds"] == 12.5 and got["stderr_done_s"] == 81.5
    (key / "status.json").write_text("{not json")  # a reader never fails on a half file
    assert bench.warmup_status(tmp_path)["state"] is None


def test_the_probe_is_one_script_with_its_constants_filled_in():
    assert "%(" not in bench.PROBE_JS
    assert json.dumps(bench.CHART_SELECTOR) in bench.PROBE_JS
    for selector in (".js-plotly-plot", ".vega-embed", "stVegaLiteChart", "stPlotlyChart"):
        assert selector in bench.CHART_SELECTOR
    for busy in ("stProgress", "stSpinner", "Running", "Leave the queue", "data-stale"):
        assert busy in bench.PROBE_JS
