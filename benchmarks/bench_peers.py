"""The project's methods at their defaults beside their peers on Adult.

Table 1 (paper 000): test accuracy (%) of differentially private logistic regression on
Adult without missing rows, stratified 75/25 split (random_state 0), the project's matrix
(:func:`core.cdp.baselines.model_matrix`: one-hot categoricals + standardised numerics, as
``bench_cdp_auto`` and ``bench_cdp_pld``), at epsilon 0.1 .. 10:

* CDP-LR at the defaults (``CDPLogisticRegression(epsilon=eps, sensitivity=1)``: automatic
  schedule, noise method "auto", which is 7 here: Gaussian, PLD accounting, delta 1e-5), and
  the paper's Laplace method 1 with the same automatic schedule;
* Opacus DP-SGD: one linear layer (logistic loss), Poisson sampling, delta 1e-5, clipping
  norm 1, plain SGD, the noise multiplier from Opacus' own accountant
  (``make_private_with_epsilon``, its default PRV accountant). Expected batch size 512;
  the grid ``OPACUS_GRID`` (epochs x learning rate, 4 settings) is chosen per epsilon on a
  validation split (20 % of the training part, seed 0: the usual, not privately
  accounted, tuning), then trained on the whole training part for every seed;
* diffprivlib-style objective perturbation (``ObjectivePerturbationLR``), reimplemented
  here because diffprivlib needs scikit-learn < 1.6: diffprivlib's ``LogisticRegression``
  defaults (C = 1, L-BFGS, tol 1e-4, 100 iterations, rows clipped to ``data_norm``, whose
  default is the largest row norm of the training matrix, as diffprivlib takes it with a
  PrivacyLeakWarning) and its ``Vector`` mechanism (Chaudhuri et al. 2011, Alg. 2):
  epsilon' = epsilon - 2 log(1 + 0.25 d / (0.5 / C)) with d the data norm including the
  intercept, extra ridge Delta and epsilon / 2 where epsilon' <= 0, a noise vector of
  uniform direction and Gamma(dim, 2 d / epsilon') norm added to the summed logistic loss.

Wall seconds per fit are recorded and reported as ratios to CDP-LR (method 1) in the same
process.

Table 2 (paper 002): synthetic Adult as in ``bench_imposter_marginals`` (75/25 split
stratified by income; implicit attributes detected on the training part; one synthetic
table of the training part's size): leak gain (attacker implicit -> sex trained on the
synthetic table, tested on the real test rows, the larger of GBDT and LR, minus the
majority share), income accuracy (TSTR, GBDT), the >50K share and capital_gain = 0 share,
and training seconds, for IMPOSTER at its defaults against TVAE and CTGAN from the
``ctgan`` package (``PEER_EPOCHS`` epochs, their other parameters at the package's
defaults; one torch thread for every model).

Needs the ``peers`` extra (opacus, ctgan); without it the benchmark is skipped with the
reason. Environment: ``PUX_PEERS_TABLES`` ("1", "2" or "1,2", the default),
``PUX_PEERS_SEEDS`` (table 1 seeds, default 3), ``PUX_PEERS_EPOCHS`` (TVAE/CTGAN epochs,
default 50; the package's own default is 300), ``PUX_PEERS_IMPOSTER_SEEDS`` (IMPOSTER seeds
in table 2, default 3; the peers train on seed 0, attacked through seed 0's implicit
attributes). ``quick``: 5,000 rows, eps 0.1, 1, 10, one seed, 2 epochs.
"""
from __future__ import annotations

import datetime
import importlib.util
import os
import time

import numpy as np
from scipy import optimize
from scipy.special import expit
from sklearn.model_selection import train_test_split

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
DELTA = 1e-5
#: Opacus DP-SGD grid (epochs, learning rate); expected batch 512, clip 1, plain SGD
OPACUS_GRID = ((5, 0.5), (5, 2.0), (20, 0.5), (20, 2.0))
OPACUS_BATCH = 512
PEER_EPOCHS = 50
DEFAULT_ROW = "CDP-LR (defaults: auto noise method)"
PAPER_ROW = "CDP-LR (auto schedule, paper's method 1)"


# ---------------------------------------------------------------- objective perturbation
class ObjectivePerturbationLR:
    """diffprivlib's ``LogisticRegression`` (binary, defaults), reimplemented faithfully.

    diffprivlib (<= 0.6) minimises, with L-BFGS-B, the summed logistic loss
    ``sum log(1 + exp(-y z)) + alpha / 2 ||w||^2`` (alpha = 1 / C, intercept unpenalised)
    plus its ``Vector`` mechanism's perturbation ``b . w + Delta / 2 ||(w, c)||^2``.
    """

    def __init__(self, *, epsilon: float, data_norm: float | None = None, C: float = 1.0,
                 tol: float = 1e-4, max_iter: int = 100, random_state: int | None = None) -> None:
        self.epsilon, self.data_norm, self.C = epsilon, data_norm, C
        self.tol, self.max_iter, self.random_state = tol, max_iter, random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> "ObjectivePerturbationLR":
        rng = np.random.default_rng(self.random_state)
        X = np.asarray(X, dtype=float)
        norm = self.data_norm if self.data_norm is not None else float(np.linalg.norm(X, axis=1).max())
        self.data_norm_ = norm
        rows = np.linalg.norm(X, axis=1)  # diffprivlib clip_to_norm
        X = X * np.minimum(1.0, norm / np.maximum(rows, 1e-300))[:, None]
        yb = np.where(np.asarray(y) == 1, 1.0, -1.0)
        d = X.shape[1] + 1
        dn = float(np.sqrt(norm ** 2 + 1))  # "data norm increases if intercept is included"
        alpha = 1.0 / self.C
        f_sens = 0.25
        eps_p = self.epsilon - 2 * np.log(1 + f_sens * dn / (0.5 * alpha))
        ridge = 0.0
        if eps_p <= 0:
            ridge = f_sens * dn / (np.exp(self.epsilon / 4) - 1) - 0.5 * alpha
            eps_p = self.epsilon / 2
        scale = dn * 2 / eps_p
        direction = rng.standard_normal((d, 4)).sum(axis=1) / 2
        noise = direction / np.linalg.norm(direction) * rng.gamma(d / 4, scale, 4).sum()
        self.epsilon_prime_, self.extra_ridge_, self.noise_norm_ = float(eps_p), float(ridge), float(np.linalg.norm(noise))

        def loss_grad(v: np.ndarray) -> tuple[float, np.ndarray]:
            w, c = v[:-1], v[-1]
            yz = yb * (X @ w + c)
            out = float(np.sum(np.logaddexp(0.0, -yz)) + 0.5 * alpha * w @ w)
            z0 = (expit(yz) - 1) * yb
            grad = np.empty_like(v)
            grad[:-1] = X.T @ z0 + alpha * w
            grad[-1] = z0.sum()
            out += float(noise @ v) + 0.5 * ridge * float(v @ v)
            return out, grad + noise + ridge * v

        v, _, info = optimize.fmin_l_bfgs_b(loss_grad, np.zeros(d), pgtol=self.tol, maxiter=self.max_iter)
        self.coef_, self.intercept_, self.n_iter_ = v[:-1], float(v[-1]), int(info["nit"])
        return self

    def score(self, X: np.ndarray, y: np.ndarray) -> float:
        pred = (np.asarray(X, dtype=float) @ self.coef_ + self.intercept_) > 0
        return float(np.mean(pred.astype(int) == np.asarray(y)))


# ---------------------------------------------------------------- Opacus DP-SGD
def _opacus_fit(Xtr: np.ndarray, ytr: np.ndarray, *, epsilon: float, epochs: int, lr: float,
                seed: int):
    import torch
    from opacus import PrivacyEngine

    torch.manual_seed(seed)
    X = torch.as_tensor(Xtr, dtype=torch.float32)
    y = torch.as_tensor(ytr, dtype=torch.float32)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=OPACUS_BATCH,
                                         shuffle=True)
    model = torch.nn.Linear(X.shape[1], 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    engine = PrivacyEngine()
    gen = torch.Generator().manual_seed(seed)
    model, opt, loader = engine.make_private_with_epsilon(
        module=model, optimizer=opt, data_loader=loader, target_epsilon=epsilon, target_delta=DELTA,
        epochs=epochs, max_grad_norm=1.0, poisson_sampling=True, noise_generator=gen)
    lossf = torch.nn.BCEWithLogitsLoss()
    model.train()
    for _ in range(epochs):
        for xb, yb in loader:
            if len(xb) == 0:
                continue
            opt.zero_grad()
            lossf(model(xb).squeeze(-1), yb).backward()
            opt.step()
    model.eval()

    def score(Xe: np.ndarray, ye: np.ndarray) -> float:
        with torch.no_grad():
            z = model(torch.as_tensor(Xe, dtype=torch.float32)).squeeze(-1).numpy()
        return float(np.mean((z > 0).astype(int) == ye))

    return score, float(opt.noise_multiplier), float(engine.get_epsilon(DELTA))


def _stats(accs, secs) -> dict:
    return {"mean": round(100 * float(np.mean(accs)), 2), "std": round(100 * float(np.std(accs)), 2),
            "seconds_per_fit": round(float(np.mean(secs)), 3)}


def _table1(quick: bool) -> dict:
    import torch

    from benchmarks.timing import adult_or_supplier
    from core.cdp.baselines import model_matrix
    from core.cdp.logistic import CDPLogisticRegression

    torch.set_num_threads(1)
    ds, source = adult_or_supplier(quick_rows=5000 if quick else None)
    seeds = range(1 if quick else int(os.environ.get("PUX_PEERS_SEEDS", "3")))
    epsilons = (0.1, 1.0, 10.0) if quick else EPSILONS
    grid = ((2, 0.5), (2, 2.0)) if quick else OPACUS_GRID
    X = model_matrix(ds, ds.features)
    y_str = ds.frame[ds.label].astype(str).str.strip().str.rstrip(".").to_numpy()
    positive = sorted(np.unique(y_str))[-1]
    y = (y_str == positive).astype(int)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    Xfit, Xval, yfit, yval = train_test_split(Xtr, ytr, test_size=0.2, stratify=ytr, random_state=0)
    out: dict = {"dataset": source, "rows": ds.n_rows, "train_rows": len(ytr), "columns": X.shape[1],
                 "split": "75/25 stratified, random_state 0", "seeds": len(seeds), "epsilons": list(epsilons),
                 "delta": DELTA, "majority": round(100 * max(float(np.mean(yte == c)) for c in (0, 1)), 2),
                 "accuracy": {}, "opacus_selected": {}, "objective_perturbation_detail": {}}
    acc = out["accuracy"]

    # CDP-LR at its defaults (noise method "auto") and with the paper's method 1, sensitivity 1
    for name, kw in ((DEFAULT_ROW, {}), (PAPER_ROW, {"noise_method": 1})):
        acc[name] = {}
        for eps in epsilons:
            accs, secs, model = [], [], None
            for s in seeds:
                t0 = time.perf_counter()
                model = CDPLogisticRegression(epsilon=eps, sensitivity=1.0, random_state=s, **kw).fit(Xtr, ytr)
                secs.append(time.perf_counter() - t0)
                accs.append(model.score(Xte, yte))
            acc[name][str(eps)] = {**_stats(accs, secs), "epochs": int(model.epochs_),
                                   "noise_method": int(model.noise_method_)}

    # diffprivlib-style objective perturbation
    name = "objective perturbation (diffprivlib LR, reimplemented)"
    acc[name] = {}
    for eps in epsilons:
        accs, secs, model = [], [], None
        for s in seeds:
            t0 = time.perf_counter()
            model = ObjectivePerturbationLR(epsilon=eps, random_state=s).fit(Xtr, ytr)
            secs.append(time.perf_counter() - t0)
            accs.append(model.score(Xte, yte))
        acc[name][str(eps)] = _stats(accs, secs)
        out["objective_perturbation_detail"][str(eps)] = {
            "data_norm": round(model.data_norm_, 3), "epsilon_prime": round(model.epsilon_prime_, 4),
            "extra_ridge": round(model.extra_ridge_, 3), "noise_norm_last_seed": round(model.noise_norm_, 1)}

    # Opacus DP-SGD: choose (epochs, lr) on the validation split, then every seed
    name = "Opacus DP-SGD (linear, Poisson)"
    acc[name] = {}
    for eps in epsilons:
        val = {}
        for E, lr in grid:
            score, _, _ = _opacus_fit(Xfit, yfit, epsilon=eps, epochs=E, lr=lr, seed=0)
            val[f"epochs {E}, lr {lr:g}"] = (score(Xval, yval), E, lr)
        best = max(val, key=lambda k: val[k][0])
        _, E, lr = val[best]
        accs, secs = [], []
        for s in seeds:
            t0 = time.perf_counter()
            score, sigma, spent = _opacus_fit(Xtr, ytr, epsilon=eps, epochs=E, lr=lr, seed=s)
            secs.append(time.perf_counter() - t0)
            accs.append(score(Xte, yte))
        acc[name][str(eps)] = {**_stats(accs, secs), "epochs": E, "learning_rate": lr,
                               "noise_multiplier": round(sigma, 4), "epsilon_spent": round(spent, 4)}
        out["opacus_selected"][str(eps)] = {"chosen": best,
                                            "validation_accuracy": {k: round(100 * v[0], 2) for k, v in val.items()}}

    ref = PAPER_ROW
    out["seconds_ratio_to_cdp_lr_method1"] = {
        k: {e: round(v[e]["seconds_per_fit"] / max(acc[ref][e]["seconds_per_fit"], 1e-9), 2) for e in v}
        for k, v in acc.items()}
    out["opacus_grid"] = [f"epochs {E}, lr {lr:g}" for E, lr in grid]
    out["opacus_setup"] = {"expected_batch": OPACUS_BATCH, "max_grad_norm": 1.0, "optimizer": "SGD",
                           "accountant": "opacus default (prv)", "poisson_sampling": True}
    return out


# ---------------------------------------------------------------- table 2
def _table2(quick: bool) -> dict:
    import pandas as pd
    import torch

    from benchmarks.bench_imposter_marginals import DEFAULTS, LABEL, POSITIVE, SENSITIVE, _one_seed, _share
    from benchmarks.timing import adult_or_census
    from core.evaluation.tasks import score_task
    from core.imposter.evaluation import marginal_tv

    torch.set_num_threads(1)
    ds, name = adult_or_census()
    frame = ds.frame
    params = dict(DEFAULTS)
    epochs = 2 if quick else int(os.environ.get("PUX_PEERS_EPOCHS", str(PEER_EPOCHS)))
    if quick:
        params["epochs"] = 2
        frame = frame.sample(n=min(5000, len(frame)), random_state=0).reset_index(drop=True)
    train, test = train_test_split(frame, test_size=0.25, random_state=0, stratify=frame[LABEL].astype(str))
    train, test = train.reset_index(drop=True), test.reset_index(drop=True)
    seed = 0
    keep = ("leak_gain", "income_tstr", "share_gt50k", "zero_share_capital_gain", "tv_one_way", "tv_two_way",
            "training_seconds")
    n_imp = 1 if quick else int(os.environ.get("PUX_PEERS_IMPOSTER_SEEDS", "3"))
    imps = [_one_seed(ds, train, test, s, params) for s in range(n_imp)]
    imp = imps[0]
    implicit = imp["implicit"]  # seed 0's detection: the peers are attacked through the same attributes
    rows = {f"IMPOSTER (defaults, seed {r['seed']})": {**{k: r[k] for k in keep if k in r},
                                                       "epochs": params["epochs"]} for r in imps}
    majority = float(test[SENSITIVE].astype(str).value_counts(normalize=True).max())
    features = [c for c in train.columns if c != LABEL]
    discrete = [c for c in train.columns if not pd.api.types.is_numeric_dtype(train[c])]
    from ctgan import CTGAN, TVAE

    for label, cls in (("TVAE", TVAE), ("CTGAN", CTGAN)):
        torch.manual_seed(seed)
        np.random.seed(seed)
        model = cls(epochs=epochs)
        t0 = time.perf_counter()
        model.fit(train, discrete_columns=discrete)
        seconds = time.perf_counter() - t0
        syn = model.sample(len(train))
        for c in discrete:  # the package returns object columns; keep the real frame's dtype
            syn[c] = syn[c].astype(train[c].dtype)
        attack = {c: score_task(syn, test, SENSITIVE, implicit, classifier=c, random_state=seed)["accuracy"]
                  for c in ("gbdt", "lr")}
        income = score_task(syn, test, LABEL, features, classifier="gbdt", random_state=seed)["accuracy"]
        tv = marginal_tv(train, syn, bins=10)
        row = {"leak_gain": round(max(attack.values()) - majority, 4), "income_tstr": round(income, 4),
               "share_gt50k": round(_share(syn, LABEL, POSITIVE), 4), "tv_one_way": round(tv["one_way"], 4),
               "tv_two_way": round(tv["two_way"], 4), "training_seconds": round(seconds, 2),
               "epochs": epochs, "attack_accuracy": {k: round(v, 4) for k, v in attack.items()}}
        if "capital_gain" in syn.columns:
            row["zero_share_capital_gain"] = round(float((syn["capital_gain"] == 0).mean()), 4)
        rows[label] = row
    return {"dataset": name, "rows_train": len(train), "rows_test": len(test), "peer_seed": seed,
            "implicit": implicit, "sex_majority_share_test": round(majority, 4),
            "real": {"share_gt50k": imp["share_gt50k_real"],
                     "zero_share_capital_gain": imp.get("zero_share_capital_gain_real"),
                     "income_real_gbdt": imp["income_real_gbdt"]},
            "imposter_parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
            "rows": rows}


def run(*, quick: bool = False) -> dict:
    missing = [m for m in ("opacus", "ctgan") if importlib.util.find_spec(m) is None]
    if missing:
        return {"skipped": f"{', '.join(missing)} not installed: install the 'peers' extra "
                           "(pip install opacus==1.6.0; pip install --no-deps ctgan==0.12.1 rdt==2.0.0; "
                           "pip install tqdm 'Faker>=17,!=37.11.0': rdt pins pandas < 3) to run the peer comparison"}
    tables = os.environ.get("PUX_PEERS_TABLES", "1,2").split(",")
    out: dict = {"date": datetime.date.today().isoformat(), "load_average_before": list(os.getloadavg()),
                 "cpu_count": os.cpu_count()}
    import ctgan
    import opacus
    import torch

    out["versions"] = {"opacus": opacus.__version__, "ctgan": getattr(ctgan, "__version__", "?"),
                       "torch": torch.__version__}
    if "1" in tables:
        out["table1_dp_logistic_regression"] = _table1(quick)
    if "2" in tables:
        out["table2_synthetic_adult"] = _table2(quick)
    out["load_average_after"] = list(os.getloadavg())
    return out
