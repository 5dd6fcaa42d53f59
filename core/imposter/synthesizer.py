"""The IMPOSTER synthesizer (paper 002, Algorithm 2 and Eq. 8-13).

An encoder E and a generator G form a VAE over the whole record except the sensitive
attribute s (all public attributes and the class label), with G conditioned on s. D1 sees
(record, s) and tells "real" samples x~ = G(E(x) | s) from "fake" ones x^ = G(z | s),
z ~ N(0, I) (Eq. 11). D2 sees only the implicit-attribute columns of generated records and
predicts s (Eq. 12). E and G minimise Eq. 13, V1 + lambda * V2 + V_VAE; D1 and D2 maximise
it. With lambda = 0, D2 has no effect on G and the model is the VAE-CGAN of the paper's
ablation. The synthetic table is G(z | s) with s drawn from its empirical distribution,
decoded back to the original columns and dtypes.

Choices the paper leaves open (see docs/paper002.md):

- G's D1 term is the usual non-saturating form, -log D1(x^ | s), instead of
  log(1 - D1(x^ | s)) (same fixed point, usable gradients early in training).
- Algorithm 2 draws D2's minibatch with as many records for s = 0 as for s = 1; here one
  generated minibatch serves D1 and D2 and D2's cross entropy is re-weighted to balance the
  values of s, which is the same objective in expectation for one generator pass.
- G's V2 term is the minimax one of Eq. 12 (G maximises D2's balanced cross entropy);
  ``d2_generator_loss="capped"`` caps each record's cross entropy at chance level and
  ``"confusion"`` pulls D2's output to uniform.
- One optimiser step for (E, G) per iteration on the sum of Eq. 13's terms (Algorithm 2
  lines 7, 10, 11 step them one after another; one step costs one backward pass).

Privacy meaning: this is not differential privacy. It removes the statistical link between
the implicit attributes and s in the published table (what an attacker's classifier can
learn from them); the networks themselves are trained on the raw data.
"""
from __future__ import annotations

import math
import time
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
import torch
from torch.nn import functional as F

from core.mechanisms import PrivacyLedger
from core.data import Dataset, infer_column_types
from core.imposter.codec import TableCodec
from core.imposter.networks import (
    Discriminator,
    Encoder,
    Generator,
    activate,
    init_weights,
    reconstruction_loss,
)
from core.validation import (
    DataError,
    RandomState,
    check_positive_int,
    check_random_state,
    spawn_seed,
)

__all__ = ["ImposterSynthesizer", "StopTraining", "Callback"]

#: ``callback(event) -> bool | None``; returning False stops training.
Callback = Callable[[dict[str, Any]], Any]

LOSS_KEYS = ("d1", "d2", "g", "recon", "kl")


class StopTraining(Exception):
    """Raise from a callback to stop training; what was learned so far is kept."""


def _check_nonneg(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}.")
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number of 0 or more, got {v:g}.")
    return v


def _check_hidden(hidden: Any, name: str) -> tuple[int, ...]:
    if isinstance(hidden, (int, np.integer)):
        hidden = (hidden,)
    if not isinstance(hidden, (tuple, list)) or not hidden:
        raise TypeError(f"{name} must be a non-empty tuple of layer widths.")
    return tuple(check_positive_int(h, name=name) for h in hidden)


def synthesizer_ledger() -> PrivacyLedger:
    """The ledger of an IMPOSTER release: no differential-privacy guarantee (paper 002)."""
    ledger = PrivacyLedger()
    ledger.mark_not_dp(
        "IMPOSTER trains its generator on the raw records without noise: it removes what the "
        "implicit attributes say about the sensitive one, but gives no differential-privacy "
        "guarantee to any record."
    )
    return ledger


class ImposterSynthesizer:
    """VAE + conditional GAN with a second discriminator on the implicit attributes.

    Parameters
    ----------
    lambda_ : float
        Weight of V2 (Eq. 10): how hard G works to make the implicit attributes useless
        for predicting s. 0 keeps every correlation (plain VAE-CGAN); the paper finds
        about 1 best; much larger values trade utility for little extra protection.
    latent_dim : int
        Size of the latent code z.
    epochs : int
        Passes over the data (iterations = epochs * ceil(rows / batch_size)).
    batch_size : int
        Minibatch size m of Algorithm 2.
    hidden : tuple of int
        Widths of the hidden layers of E and G.
    disc_hidden : tuple of int
        Widths of the hidden layers of D1 and D2.
    learning_rate : float
        Adam step size for all four networks.
    kl_weight : float
        Weight of the KL term inside Eq. 8 (1 is the paper's VAE).
    vae_weight : float
        Weight of V_VAE in Eq. 13 (1 = the paper's objective: the reconstruction error
        is -log p(x | z), a sum over the modelled attributes).
    v2_scale : {"implicit", "none"}
        How V2 is put on the scale of V_VAE, which the paper leaves open. "implicit"
        (default) multiplies V2 by the number of implicit attributes, so that lambda = 1
        weighs removing the leak as much as reconstructing the attributes that carry
        it, on any table; "none" uses V2 as printed (then lambda must grow with the
        number of implicit attributes to have the same effect).
    probe_every : int
        Every this many iterations the callback also gets D2's accuracy on a fresh,
        class-balanced batch of generated records (chance = 1 / number of values of s).
    d2_steps : int
        D2 updates per iteration (on the same generated minibatch). Proposition 1 assumes
        an optimal D2; more steps keep it closer to optimal, so G's minimax gradient
        points at independence instead of overshooting into a reversed relation.
    ema : float in [0, 1)
        ``sample`` uses an exponential moving average of G's weights with this decay
        (0.995: about the last 200 iterations) instead of the last iterate. Averaging damps
        the oscillation of the minimax game between a relation and its reverse, which on
        Adult left a leak on some seeds (docs/paper002.md). 0 samples the last iterate.
    d2_generator_loss : {"minimax", "capped", "confusion"}
        G's V2 term: maximise D2's cross entropy (Eq. 12); the same with each record's
        cross entropy capped at chance level (no reward for a reversed relation: steadier
        leak removal across seeds, lower label utility in our runs on Adult); or pull
        D2's output to uniform.
    decode : {"sample", "argmax"}
        How a categorical value is read from its softmax block when sampling.
    n_threads : int or None
        Torch CPU threads while fitting and sampling (restored afterwards). None uses
        one: the networks are small, and on cores shared with other work extra threads
        spin and slow training down several times.
    random_state : int, Generator or None
        Seeds weights, minibatches, noise and sampling: the same seed gives the same
        synthetic table on one machine.

    Attributes
    ----------
    history_ : DataFrame
        One row per iteration: ``iteration``, ``epoch``, the losses ``d1``, ``d2``, ``g``,
        ``recon``, ``kl`` and ``d2_accuracy`` (NaN between probes).
    stopped_ : bool
        True when training was stopped before the last epoch.
    """

    def __init__(
        self,
        *,
        lambda_: float = 1.0,
        latent_dim: int = 32,
        epochs: int = 15,
        batch_size: int = 500,
        hidden: Sequence[int] = (128, 128),
        disc_hidden: Sequence[int] = (128,),
        learning_rate: float = 1e-3,
        kl_weight: float = 1.0,
        vae_weight: float = 1.0,
        v2_scale: str = "implicit",
        probe_every: int = 20,
        d2_steps: int = 1,
        ema: float = 0.995,
        d2_generator_loss: str = "minimax",
        decode: str = "sample",
        n_threads: int | None = None,
        random_state: RandomState = None,
    ) -> None:
        self.lambda_ = lambda_
        self.latent_dim = latent_dim
        self.epochs = epochs
        self.batch_size = batch_size
        self.hidden = hidden
        self.disc_hidden = disc_hidden
        self.learning_rate = learning_rate
        self.kl_weight = kl_weight
        self.vae_weight = vae_weight
        self.v2_scale = v2_scale
        self.probe_every = probe_every
        self.d2_steps = d2_steps
        self.ema = ema
        self.d2_generator_loss = d2_generator_loss
        self.decode = decode
        self.n_threads = n_threads
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _validate(self) -> None:
        self._lambda = _check_nonneg(self.lambda_, "lambda_")
        self._kl = _check_nonneg(self.kl_weight, "kl_weight")
        self._vae_w = _check_nonneg(self.vae_weight, "vae_weight")
        if self.v2_scale not in ("implicit", "none"):
            raise ValueError(f"v2_scale must be 'implicit' or 'none', got {self.v2_scale!r}.")
        lr = _check_nonneg(self.learning_rate, "learning_rate")
        if lr == 0:
            raise ValueError("learning_rate must be greater than 0.")
        self._lr = lr
        check_positive_int(self.latent_dim, name="latent_dim")
        check_positive_int(self.epochs, name="epochs")
        check_positive_int(self.batch_size, name="batch_size", minimum=2)
        check_positive_int(self.probe_every, name="probe_every")
        check_positive_int(self.d2_steps, name="d2_steps")
        self._ema = _check_nonneg(self.ema, "ema")
        if self._ema >= 1:
            raise ValueError(f"ema must lie in [0, 1), got {self._ema:g}.")
        self._hidden = _check_hidden(self.hidden, "hidden")
        self._disc_hidden = _check_hidden(self.disc_hidden, "disc_hidden")
        if self.d2_generator_loss not in ("minimax", "capped", "confusion"):
            raise ValueError(
                "d2_generator_loss must be 'minimax', 'capped' or 'confusion', "
                f"got {self.d2_generator_loss!r}."
            )
        if self.decode not in ("sample", "argmax"):
            raise ValueError(f"decode must be 'sample' or 'argmax', got {self.decode!r}.")
        if self.n_threads is not None:
            check_positive_int(self.n_threads, name="n_threads")

    def _threads(self) -> int:
        return self.n_threads or 1

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        dataset: Dataset | pd.DataFrame,
        sensitive: str | None = None,
        implicit: Sequence[str] = (),
        callback: Callback | None = None,
        *,
        stop: Any = None,
    ) -> "ImposterSynthesizer":
        """Train E, G, D1 and D2 on ``dataset`` (Algorithm 2).

        Parameters
        ----------
        dataset : Dataset or DataFrame
            The real table. Column types come from the Dataset (or are inferred).
        sensitive : str, optional
            The explicit privacy attribute s (default: the Dataset's first sensitive
            column). It conditions G and is never generated from the other columns.
        implicit : sequence of str
            The implicit-privacy attributes (from :func:`detect_implicit`) whose link to
            s D2 removes. Empty means nothing to remove (D2 is not trained).
        callback : callable, optional
            Called after every iteration with a dict: ``iteration``, ``epoch``,
            ``iterations`` (total planned), the losses ``d1``, ``d2``, ``g``, ``recon``,
            ``kl``, and ``d2_accuracy`` (a float every ``probe_every`` iterations, else
            None). Returning False (or raising :class:`StopTraining`) stops training.
        stop : object with ``is_set()``, optional
            A ``threading.Event`` (or alike) checked between iterations: set it from
            outside to stop training.
        """
        self._validate()
        frame, numeric, categorical = self._frame_and_types(dataset)
        sensitive = self._resolve_sensitive(dataset, frame, sensitive)
        implicit = self._resolve_implicit(frame, sensitive, implicit)
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable.")
        if len(frame) < 2:
            raise DataError("IMPOSTER needs at least two rows to train.")

        rng = check_random_state(self.random_state)
        self._rng = rng
        self._gen = torch.Generator().manual_seed(spawn_seed(rng))
        # D2 gets its own stream so that its size (the implicit set) does not change the
        # draws of E, G and D1: with lambda = 0 the model is then exactly the VAE-CGAN.
        d2_gen = torch.Generator().manual_seed(spawn_seed(rng))

        columns = [c for c in frame.columns if c != sensitive]
        self.codec_ = TableCodec(numeric, categorical).fit(frame, columns)
        s_values = frame[sensitive]
        s_cats = sorted(s_values.dropna().unique(), key=lambda v: str(v))
        self.sensitive_ = sensitive
        self.implicit_ = tuple(implicit)
        self.sensitive_values_ = tuple(s_cats)
        self.sensitive_dtype_ = s_values.dtype
        self.columns_ = tuple(frame.columns)
        keep = s_values.notna().to_numpy()
        frame = frame[keep].reset_index(drop=True)
        s_index = {c: i for i, c in enumerate(s_cats)}
        s_codes = frame[sensitive].map(s_index).to_numpy(dtype=np.int64)
        k = len(s_cats)
        self.sensitive_share_ = np.bincount(s_codes, minlength=k) / len(s_codes)

        X = torch.from_numpy(self.codec_.transform(frame))
        S = torch.from_numpy(np.array(s_codes, dtype=np.int64))
        blocks = self.codec_.blocks_
        width = self.codec_.width_
        imp_idx = torch.tensor(self.codec_.indices(self.implicit_), dtype=torch.long)
        use_d2 = len(imp_idx) > 0
        vae_w = self._vae_w
        v2_w = self._lambda * (len(self.implicit_) if self.v2_scale == "implicit" else 1.0)

        prev_threads = torch.get_num_threads()
        prev_det = torch.are_deterministic_algorithms_enabled()
        torch.set_num_threads(self._threads())
        torch.use_deterministic_algorithms(True, warn_only=True)
        try:
            self.encoder_ = Encoder(width, self._hidden, self.latent_dim)
            self.generator_ = Generator(self.latent_dim, k, tuple(reversed(self._hidden)), width)
            self.d1_ = Discriminator(width + k, self._disc_hidden, 1)
            self.d2_ = Discriminator(max(len(imp_idx), 1), self._disc_hidden, k)
            for net in (self.encoder_, self.generator_, self.d1_):
                init_weights(net, self._gen)
            init_weights(self.d2_, d2_gen)
            ema_params = [p.detach().clone() for p in self.generator_.parameters()] if self._ema > 0 else None
            betas = (0.5, 0.9)
            opt_eg = torch.optim.Adam(
                list(self.encoder_.parameters()) + list(self.generator_.parameters()),
                lr=self._lr, betas=betas,
            )
            opt_d1 = torch.optim.Adam(self.d1_.parameters(), lr=self._lr, betas=betas)
            opt_d2 = torch.optim.Adam(self.d2_.parameters(), lr=self._lr, betas=betas)
            class_weight = torch.tensor(1.0 / (k * np.maximum(self.sensitive_share_, 1e-12)),
                                        dtype=torch.float32)

            n = len(X)
            m = min(self.batch_size, n)
            per_epoch = math.ceil(n / m)
            total = per_epoch * self.epochs
            history: list[dict[str, Any]] = []
            self.stopped_ = False
            it = 0
            start = time.perf_counter()
            for epoch in range(self.epochs):
                order = torch.from_numpy(rng.permutation(n))
                for b in range(per_epoch):
                    if stop is not None and stop.is_set():
                        self.stopped_ = True
                        break
                    idx = order[b * m:(b + 1) * m]
                    if len(idx) < 2:
                        continue
                    xb, sb = X[idx], S[idx]
                    s1h = F.one_hot(sb, k).float()
                    # forward: x~ = G(E(x) | s) and x^ = G(z | s)
                    mu, logvar = self.encoder_(xb)
                    eps = torch.randn(mu.shape, generator=self._gen)
                    z_l = mu + torch.exp(0.5 * logvar) * eps
                    logits_rec = self.generator_(z_l, s1h)
                    x_tilde = activate(logits_rec, blocks)
                    z = torch.randn((len(idx), self.latent_dim), generator=self._gen)
                    x_hat = activate(self.generator_(z, s1h), blocks)

                    # D1 ascends Eq. 11 (Algorithm 2, line 6)
                    opt_d1.zero_grad(set_to_none=True)
                    d_real = self.d1_(torch.cat([x_tilde.detach(), s1h], dim=1))
                    d_fake = self.d1_(torch.cat([x_hat.detach(), s1h], dim=1))
                    loss_d1 = F.binary_cross_entropy_with_logits(
                        d_real, torch.ones_like(d_real)
                    ) + F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
                    loss_d1.backward()
                    opt_d1.step()

                    # D2 ascends Eq. 12 on the implicit columns of x^ (line 9)
                    loss_d2 = torch.zeros(())
                    if use_d2:
                        x_imp = x_hat.detach()[:, imp_idx]
                        for _ in range(self.d2_steps):
                            opt_d2.zero_grad(set_to_none=True)
                            loss_d2 = F.cross_entropy(self.d2_(x_imp), sb, weight=class_weight)
                            loss_d2.backward()
                            opt_d2.step()

                    # E and G descend Eq. 13 (lines 7, 10, 11)
                    opt_eg.zero_grad(set_to_none=True)
                    g_fake = self.d1_(torch.cat([x_hat, s1h], dim=1))
                    g_v1 = F.binary_cross_entropy_with_logits(g_fake, torch.ones_like(g_fake))
                    g_v2 = torch.zeros(())
                    if use_d2 and self._lambda > 0:
                        logits2 = self.d2_(x_hat[:, imp_idx])
                        if self.d2_generator_loss == "minimax":
                            g_v2 = -F.cross_entropy(logits2, sb, weight=class_weight)
                        elif self.d2_generator_loss == "capped":
                            # Eq. 12, but no reward for pushing D2 below chance on a record:
                            # that would plant the reversed relation instead of removing it
                            ce = F.cross_entropy(logits2, sb, reduction="none").clamp(max=math.log(k))
                            w = class_weight[sb]
                            g_v2 = -(w * ce).sum() / w.sum()
                        else:
                            g_v2 = -(F.log_softmax(logits2, dim=1).mean(dim=1)).mean()
                    recon = reconstruction_loss(logits_rec, xb, blocks)
                    kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)).mean()
                    loss = g_v1 + v2_w * g_v2 + vae_w * (recon + self._kl * kl)
                    loss.backward()
                    opt_eg.step()
                    if ema_params is not None:
                        with torch.no_grad():
                            for avg, p in zip(ema_params, self.generator_.parameters()):
                                avg.mul_(self._ema).add_(p.detach(), alpha=1.0 - self._ema)

                    it += 1
                    event = {
                        "iteration": it, "epoch": epoch + 1, "iterations": total,
                        "d1": loss_d1.item(), "d2": loss_d2.item(),
                        "g": (g_v1 + v2_w * g_v2).item(), "recon": recon.item(),
                        "kl": kl.item(), "d2_accuracy": None,
                        "seconds": time.perf_counter() - start,
                    }
                    if use_d2 and (it % self.probe_every == 0 or it == total):
                        event["d2_accuracy"] = self._probe_d2(imp_idx, k, d2_gen)
                    history.append(event)
                    if callback is not None:
                        try:
                            answer = callback(dict(event))
                        except StopTraining:
                            answer = False
                        if answer is False:
                            self.stopped_ = True
                            break
                if self.stopped_:
                    break
            self.iterations_ = it
            self.history_ = pd.DataFrame(
                history,
                columns=["iteration", "epoch", "iterations", *LOSS_KEYS, "d2_accuracy", "seconds"],
            ).astype({"d2_accuracy": float})
            self.sampler_ = self.generator_
            if ema_params is not None:
                import copy

                self.sampler_ = copy.deepcopy(self.generator_)
                with torch.no_grad():
                    for p, avg in zip(self.sampler_.parameters(), ema_params):
                        p.copy_(avg)
        finally:
            torch.set_num_threads(prev_threads)
            torch.use_deterministic_algorithms(prev_det)
        for net in (self.encoder_, self.generator_, self.d1_, self.d2_):
            net.eval()
        self.ledger_ = synthesizer_ledger()
        return self

    @torch.no_grad()
    def _probe_d2(self, imp_idx: torch.Tensor, k: int, gen: torch.Generator,
                  size: int = 512) -> float:
        per = max(1, size // k)
        s = torch.arange(k).repeat_interleave(per)
        z = torch.randn((len(s), self.latent_dim), generator=gen)
        x_hat = activate(self.generator_(z, F.one_hot(s, k).float()), self.codec_.blocks_)
        pred = self.d2_(x_hat[:, imp_idx]).argmax(dim=1)
        return float((pred == s).float().mean())

    # ------------------------------------------------------------------ sample
    def sample(self, n: int, *, random_state: RandomState = None) -> pd.DataFrame:
        """``n`` synthetic records G(z | s), s drawn from its empirical distribution.

        Parameters
        ----------
        n : int
            Number of rows.
        random_state : int, Generator or None
            Seeds this draw; None continues the model's own generator (so a fitted
            model with a fixed ``random_state`` gives the same tables in the same order).

        Returns
        -------
        DataFrame
            The original columns, in their order and dtypes.
        """
        if not hasattr(self, "generator_"):
            raise RuntimeError("Call fit before sample.")
        n = check_positive_int(n, name="n")
        if random_state is None:
            rng, gen = self._rng, self._gen
        else:
            rng = check_random_state(random_state)
            gen = torch.Generator().manual_seed(spawn_seed(rng))
        k = len(self.sensitive_values_)
        s_codes = rng.choice(k, size=n, p=self.sensitive_share_)
        prev_threads = torch.get_num_threads()
        torch.set_num_threads(self._threads())
        try:
            with torch.no_grad():
                s1h = F.one_hot(torch.from_numpy(s_codes), k).float()
                outs = []
                for start in range(0, n, 8192):
                    z = torch.randn((len(s1h[start:start + 8192]), self.latent_dim), generator=gen)
                    outs.append(activate(self.sampler_(z, s1h[start:start + 8192]),
                                         self.codec_.blocks_))
                Xg = torch.cat(outs).numpy()
        finally:
            torch.set_num_threads(prev_threads)
        body = self.codec_.inverse(Xg, rng=rng, mode=self.decode)
        s_arr = np.empty(k, dtype=object)
        s_arr[:] = self.sensitive_values_
        s_col = pd.Series(s_arr[s_codes])
        try:
            s_col = s_col.astype(self.sensitive_dtype_)
        except (TypeError, ValueError):
            pass
        body[self.sensitive_] = s_col.to_numpy()
        return body[list(self.columns_)]

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _frame_and_types(dataset) -> tuple[pd.DataFrame, tuple, tuple]:
        if isinstance(dataset, Dataset):
            return dataset.frame, dataset.numeric, dataset.categorical
        if isinstance(dataset, pd.DataFrame):
            numeric, categorical = infer_column_types(dataset)
            return dataset, numeric, categorical
        raise TypeError(f"dataset must be a Dataset or DataFrame, got {type(dataset).__name__}.")

    @staticmethod
    def _resolve_sensitive(dataset, frame: pd.DataFrame, sensitive) -> str:
        if sensitive is None:
            if isinstance(dataset, Dataset) and dataset.sensitive:
                sensitive = dataset.sensitive[0]
            else:
                raise DataError("Choose the sensitive attribute s that IMPOSTER protects.")
        if not isinstance(sensitive, str):
            raise TypeError(f"sensitive must be a column name, got {type(sensitive).__name__}.")
        if sensitive not in frame.columns:
            raise DataError(f"The sensitive column '{sensitive}' is not in the data.")
        n_values = frame[sensitive].nunique(dropna=True)
        if n_values < 2:
            raise DataError(f"The sensitive column '{sensitive}' has a single value; nothing to protect.")
        if n_values > 20:
            raise DataError(
                f"The sensitive column '{sensitive}' has {n_values} values; IMPOSTER conditions "
                "on a categorical attribute with at most 20 values (bin it first)."
            )
        return sensitive

    @staticmethod
    def _resolve_implicit(frame: pd.DataFrame, sensitive: str, implicit) -> tuple[str, ...]:
        if implicit is None:
            implicit = ()
        if isinstance(implicit, str):
            implicit = (implicit,)
        implicit = tuple(implicit)
        for c in implicit:
            if c == sensitive:
                raise ValueError("The sensitive attribute cannot also be an implicit attribute.")
            if c not in frame.columns:
                raise DataError(f"The implicit attribute '{c}' is not in the data.")
        return implicit
