"""The IMPOSTER page's "Download bundle": a colleague's zip whose script and notebook rerun the
page's numbers exactly, the training (a background process on the page) included."""
from __future__ import annotations

import json

from tests.core.bundle.support import assert_reruns
from tests.dashboard.conftest import assert_clean, finish_sweeps


def _trained(open_page):
    """The page on the census sample, trained for 2 epochs, Table 1 and kRR with LR only, and a
    theta sweep of one epoch per theta."""
    at = open_page("imposter", timeout=300)
    at.number_input(key="imposter_epochs").set_value(2).run()
    at.session_state["imposter_classifiers"] = ["lr"]
    at.session_state["imposter_krr_clf"] = "lr"
    at.button(key="imposter_train").click().run()
    jobs = at.session_state["imposter_jobs"]
    assert jobs[at.session_state["imposter_columns_of"]].wait(180), "training did not end"
    at.run()
    finish_sweeps(at)
    # a tiny theta sweep (Table 2), finished: the bundle holds it too
    at.number_input(key="imposter_sweep_epochs").set_value(1)  # every setting, then one run
    at.selectbox(key="imposter_sweep_clf").set_value("lr")
    at.text_input(key="imposter_thetas").set_value("0.1, 0.01").run()
    at.button(key="imposter_theta_run").click().run()
    return finish_sweeps(at)


def test_imposter_bundle_reruns_to_the_pages_numbers(open_page, tmp_path):
    at = _trained(open_page)
    assert_clean(at)
    at.button(key="imposter_bundle_prepare").click().run()
    assert_clean(at)
    bundle = at.session_state["imposter_bundle"]
    assert bundle.manifest["kind"] == "colleague" and not bundle.ledger.is_dp
    result = assert_reruns(bundle.data, tmp_path)
    settings = json.loads((tmp_path / "config.json").read_text())["settings"]
    assert settings["epochs"] == 2 and settings["classifiers"] == ["lr"] and settings["lambdas"] is None
    assert settings["thetas"] == [0.01, 0.1] and settings["sweep_epochs"] == 1  # the sweep the page shows
    numbers = result["numbers"]
    # the training ran in the page's background process; the bundle trained again with the same seed
    job = at.session_state["imposter_jobs"][at.session_state["imposter_columns_of"]]
    assert numbers["training"]["iterations"] == job.model.iterations_ == 12
    assert numbers["training"]["last iteration"]["recon"] == float(job.history()["recon"].iloc[-1])
    # Table 1 (a sweep job in its own process) as the page shows it
    table = next(d.value for d in at.dataframe if "LR (paper, Adult)" in list(d.value.index))
    ours = numbers["settings A and B (Table 1)"]["classifiers"][0]
    for col in table.columns:
        if col.startswith(("A: ", "B: ")) or col.startswith("train synthetic"):
            setting = {"A": "A", "B": "B"}.get(col[0], "TSTR")
            task = "sensitive" if "predict sex" in col else "label"
            assert table.loc["LR", col] == ours[f"{setting} {task} {col.rsplit(' · ', 1)[1]}"], col
    fidelity = next(d.value for d in at.dataframe if "one-way TV (marginals)" in d.value.columns)
    tv = numbers["marginal fidelity (real vs synthetic)"]
    assert fidelity["one-way TV (marginals)"].iloc[0] == tv["one-way TV (marginals)"]
    boxes = [b.value.replace("\\", "") for b in (*at.success, *at.warning, *at.info)]
    finding = numbers["theta sweep (Table 2)"]["claim"]["finding"]
    assert any(finding in box for box in boxes), finding  # the claim box under Table 2, with its numbers
    assert result["releases"][0]["rows"] == 3000 and result["releases"][0]["is_dp"] is False
