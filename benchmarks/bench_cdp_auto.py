"""CDP-LR accuracy on Adult: the automatic schedule against the old presets and a grid.

Issue: the old "sensible" preset (5 epochs, learning rate 3) predicted the majority class at
every epsilon. This measures test accuracy (5 seeds) at eps 0.1 .. 10 for

* ordinary DP: noise method 1, sensitivity 1, on the project's own matrix
  (:func:`core.cdp.baselines.model_matrix`: one-hot categoricals + standardised numerics,
  every attribute; no row normalisation), Adult without missing rows, stratified 75/25
  split; the old presets, the automatic schedule (``epochs="auto"``,
  ``learning_rate="auto"``: :func:`core.cdp.schedule.auto_schedule`) and a grid of epochs x
  learning rates (plain gradient descent);
* the page's Proposed scheme (DC-FBFS + CS, :func:`core.cdp.baselines.prepare_schemes` on
  a 5,000-row sample, as the page's default "Rows used", 80/20 split), old and new presets;

with the majority class and non-private logistic regression (scikit-learn) as the floor
and the ceiling. Without the Adult files the supplier sample stands in (noted).
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from benchmarks.timing import adult_or_supplier
from core.cdp.baselines import fit_scheme, model_matrix, prepare_schemes
from core.cdp.logistic import CDPLogisticRegression
from core.cdp.schedule import PRESETS

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
#: the presets as they were before the automatic schedule
OLD_SENSIBLE = {"learning_rate": 3.0, "epochs": 5, "clip_norm": 1.0, "delta": 1e-5}


def _mean_acc(make, Xtr, ytr, Xte, yte, seeds) -> dict:
    accs, model = [], None
    for s in seeds:
        model = make(s).fit(Xtr, ytr)
        accs.append(model.score(Xte, yte))
    return {"mean": round(100 * float(np.mean(accs)), 2), "std": round(100 * float(np.std(accs)), 2),
            "epochs": int(model.epochs_), "learning_rate": float(model.learning_rate_),
            "momentum": float(model.momentum_)}


def run(*, quick: bool = False) -> dict:
    ds, source = adult_or_supplier(quick_rows=5000 if quick else None)
    seeds = range(2 if quick else 5)
    epsilons = (0.1, 1.0, 10.0) if quick else EPSILONS
    out: dict = {"dataset": source, "rows": ds.n_rows, "seeds": len(seeds), "epsilons": list(epsilons)}

    # ---- ordinary DP, method 1, sensitivity 1, project's matrix
    X = model_matrix(ds, ds.features)
    y = ds.frame[ds.label].astype(str).to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    majority = max(float(np.mean(yte == c)) for c in np.unique(y))
    nonpriv = float(LogisticRegression(max_iter=1000).fit(Xtr, ytr).score(Xte, yte))
    settings = {"old sensible (5 epochs, lr 3)": OLD_SENSIBLE, "paper": PRESETS["paper"],
                "auto (new default)": {}}
    ordinary: dict = {"matrix": f"model_matrix: {X.shape[1]} columns, one-hot + standardised, no row scaling",
                      "split": "75/25 stratified, random_state 0", "train_rows": len(ytr),
                      "majority": round(100 * majority, 2), "non_private": round(100 * nonpriv, 2),
                      "presets": {}, "grid": {}}
    for name, kw in settings.items():
        ordinary["presets"][name] = {
            str(eps): _mean_acc(lambda s, eps=eps, kw=kw: CDPLogisticRegression(
                epsilon=eps, noise_method=1, sensitivity=1.0, random_state=s, **kw), Xtr, ytr, Xte, yte, seeds)
            for eps in epsilons}
    grid_epochs = (5, 30) if quick else (5, 10, 30, 100)
    grid_lr = (3.0, 30.0) if quick else (3.0, 10.0, 30.0, 100.0)
    for T in grid_epochs:
        for lr in grid_lr:
            ordinary["grid"][f"epochs {T}, lr {lr:g}"] = {
                str(eps): _mean_acc(lambda s, eps=eps: CDPLogisticRegression(
                    epsilon=eps, noise_method=1, sensitivity=1.0, epochs=T, learning_rate=lr,
                    random_state=s), Xtr, ytr, Xte, yte, seeds)["mean"]
                for eps in epsilons}
    out["ordinary_dp_method1_sensitivity1"] = ordinary

    # ---- the page's Proposed scheme (CS) on the page's default 5,000 rows
    data = ds.sample(5000, random_state=0) if ds.n_rows > 5000 else ds
    setup = prepare_schemes(data, random_state=0)
    _, nonpriv_p = fit_scheme(setup, "Non-private", epsilon=1.0)
    yte_p = setup.y[setup.test]
    proposed: dict = {"rows": data.n_rows, "split": "80/20 (prepare_schemes)",
                      "CS": setup.sensitivity["Proposed"], "features": setup.columns["Proposed"],
                      "majority": round(100 * max(float(np.mean(yte_p == c)) for c in np.unique(yte_p)), 2),
                      "non_private": round(100 * nonpriv_p, 2), "presets": {}}
    mats = setup.matrices("Proposed")
    for name, kw in {"old sensible (5 epochs, lr 3)": OLD_SENSIBLE, "paper": PRESETS["paper"],
                     "auto (new default)": PRESETS["sensible"]}.items():
        proposed["presets"][name] = {}
        for eps in epsilons:
            accs, model = [], None
            for s in seeds:
                model, acc = fit_scheme(setup, "Proposed", epsilon=eps, noise_method=1, random_state=s, matrices=mats,
                                        preset="paper", **kw)
                accs.append(acc)
            proposed["presets"][name][str(eps)] = {"mean": round(100 * float(np.mean(accs)), 2),
                                                   "epochs": int(model.epochs_)}
    out["proposed_scheme_cs"] = proposed
    return out
