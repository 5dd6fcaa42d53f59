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

import copy
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, NamedTuple, Sequence

import numpy as np
import pandas as pd
import torch
from torch.nn import functional as F

from core.privacy.mechanisms import PrivacyLedger
from core.data import Dataset, infer_column_types
from core.imposter.codec import TableCodec
from core.imposter.networks import (
    D2Loss,
    Discriminator,
    Encoder,
    Generator,
    activate,
    d2_generator_loss,
    init_weights,
    reconstruction_loss,
)
from core.validation import DataError, check_positive_int
from core.runtime.randomness import RandomState, check_random_state, spawn_seed

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


@contextmanager
def _torch_settings(threads: int, *, deterministic: bool = False) -> Iterator[None]:
    """Torch CPU threads (and, if asked, deterministic algorithms) for a block; the previous
    settings are restored afterwards."""
    prev_threads = torch.get_num_threads()
    prev_det = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(threads)
    if deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.set_num_threads(prev_threads)
        if deterministic:
            torch.use_deterministic_algorithms(prev_det)


def _carry_on(callback: Callback | None, event: dict[str, Any]) -> bool:
    """Hand ``event`` (a copy) to the callback; False when it asks to stop training."""
    if callback is None:
        return True
    try:
        answer = callback(dict(event))
    except StopTraining:
        answer = False
    return answer is not False


class _Optimisers(NamedTuple):
    """Adam for (E, G) together, for D1 and for D2."""

    eg: torch.optim.Optimizer
    d1: torch.optim.Optimizer
    d2: torch.optim.Optimizer


class _WeightAverage:
    """An exponential moving average of a network's weights (``ema``), for sampling."""

    def __init__(self, net: torch.nn.Module, decay: float) -> None:
        self.decay = decay
        self.params = [p.detach().clone() for p in net.parameters()]

    @torch.no_grad()
    def update(self, net: torch.nn.Module) -> None:
        for avg, p in zip(self.params, net.parameters()):
            avg.mul_(self.decay).add_(p.detach(), alpha=1.0 - self.decay)

    @torch.no_grad()
    def sampler(self, net: torch.nn.Module) -> torch.nn.Module:
        """A copy of ``net`` carrying the averaged weights."""
        averaged = copy.deepcopy(net)
        for p, avg in zip(averaged.parameters(), self.params):
            p.copy_(avg)
        return averaged


@dataclass
class _TrainingStep:
    """One iteration of Algorithm 2 on a minibatch (x, s): D1 ascends Eq. 11, D2 Eq. 12
    (``d2_steps`` times), E and G descend Eq. 13; then G's weight average moves."""

    encoder: Encoder
    generator: Generator
    d1: Discriminator
    d2: Discriminator
    optimisers: _Optimisers
    average: _WeightAverage | None
    blocks: Sequence[Any]
    imp_idx: torch.Tensor  # the implicit attributes' columns in the encoded record
    latent_dim: int
    class_weight: torch.Tensor  # balances the values of s in D2's cross entropy
    v2_weight: float  # lambda, on the scale of V_VAE
    vae_weight: float
    kl_weight: float
    train_v2: bool  # lambda > 0
    v2_loss: D2Loss
    d2_steps: int
    gen: torch.Generator
    d2_gen: torch.Generator

    @property
    def use_d2(self) -> bool:
        """Whether there are implicit attributes for D2 to read."""
        return len(self.imp_idx) > 0

    @property
    def k(self) -> int:
        """Number of values of s."""
        return len(self.class_weight)

    def __call__(self, xb: torch.Tensor, sb: torch.Tensor) -> dict[str, float]:
        """Train on one minibatch; its losses d1, d2, g, recon and kl."""
        s1h = F.one_hot(sb, self.k).float()
        # forward: x~ = G(E(x) | s) and x^ = G(z | s)
        mu, logvar = self.encoder(xb)
        eps = torch.randn(mu.shape, generator=self.gen)
        z_l = mu + torch.exp(0.5 * logvar) * eps
        logits_rec = self.generator(z_l, s1h)
        x_tilde = activate(logits_rec, self.blocks)
        z = torch.randn((len(xb), self.latent_dim), generator=self.gen)
        x_hat = activate(self.generator(z, s1h), self.blocks)
        loss_d1 = self._update_d1(x_tilde, x_hat, s1h)
        loss_d2 = self._update_d2(x_hat, sb)
        g, recon, kl = self._update_eg(xb, sb, s1h, x_hat, logits_rec, mu, logvar)
        if self.average is not None:
            self.average.update(self.generator)
        return {"d1": loss_d1.item(), "d2": loss_d2.item(), "g": g.item(), "recon": recon.item(),
                "kl": kl.item()}

    def _update_d1(self, x_tilde: torch.Tensor, x_hat: torch.Tensor, s1h: torch.Tensor) -> torch.Tensor:
        """D1 ascends Eq. 11 (Algorithm 2, line 6)."""
        opt = self.optimisers.d1
        opt.zero_grad(set_to_none=True)
        d_real = self.d1(torch.cat([x_tilde.detach(), s1h], dim=1))
        d_fake = self.d1(torch.cat([x_hat.detach(), s1h], dim=1))
        loss = F.binary_cross_entropy_with_logits(
            d_real, torch.ones_like(d_real)
        ) + F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        loss.backward()
        opt.step()
        return loss

    def _update_d2(self, x_hat: torch.Tensor, sb: torch.Tensor) -> torch.Tensor:
        """D2 ascends Eq. 12 on the implicit columns of x^ (line 9)."""
        loss = torch.zeros(())
        if self.use_d2:
            opt = self.optimisers.d2
            x_imp = x_hat.detach()[:, self.imp_idx]
            for _ in range(self.d2_steps):
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(self.d2(x_imp), sb, weight=self.class_weight)
                loss.backward()
                opt.step()
        return loss

    def _update_eg(self, xb, sb, s1h, x_hat, logits_rec, mu, logvar) -> tuple[torch.Tensor, ...]:
        """E and G descend Eq. 13 (lines 7, 10, 11); G's GAN terms, the reconstruction
        error and the KL term."""
        opt = self.optimisers.eg
        opt.zero_grad(set_to_none=True)
        g_fake = self.d1(torch.cat([x_hat, s1h], dim=1))
        g_v1 = F.binary_cross_entropy_with_logits(g_fake, torch.ones_like(g_fake))
        g_v2 = torch.zeros(())
        if self.use_d2 and self.train_v2:
            g_v2 = self.v2_loss(self.d2(x_hat[:, self.imp_idx]), sb, self.class_weight)
        recon = reconstruction_loss(logits_rec, xb, self.blocks)
        kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)).mean()
        g = g_v1 + self.v2_weight * g_v2
        loss = g + self.vae_weight * (recon + self.kl_weight * kl)
        loss.backward()
        opt.step()
        return g, recon, kl

    @torch.no_grad()
    def probe_d2(self, size: int = 512) -> float:
        """D2's accuracy on a fresh, class-balanced batch of generated records."""
        per = max(1, size // self.k)
        s = torch.arange(self.k).repeat_interleave(per)
        z = torch.randn((len(s), self.latent_dim), generator=self.d2_gen)
        x_hat = activate(self.generator(z, F.one_hot(s, self.k).float()), self.blocks)
        pred = self.d2(x_hat[:, self.imp_idx]).argmax(dim=1)
        return float((pred == s).float().mean())


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
    bins : int or None
        Each numeric column is generated as a softmax over its point masses and this
        many quantile bins of its other values (see
        :class:`~core.imposter.codec.TableCodec`): its value is drawn, so a skewed or
        multimodal column keeps its shape. None: the earlier encoding, one min-max
        column with a sigmoid (its output regresses to the mean; no point masses).
    mass_share : float in (0, 1) or None
        A numeric value holding at least this share of the rows (e.g. the zeros of
        Adult's capital_gain) is a point mass: a mode of its own, decoded back exactly.
        None: no point masses.
    calibrate : bool
        When sampling, re-weight every categorical softmax (and every numeric point-mass
        softmax) so that the synthetic table's shares of each category match the
        training table's (the label's class balance among them). The same factor applies
        to every row, whatever its s: it moves marginals, not the link to s.
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
        bins: int | None = 20,
        mass_share: float | None = 0.05,
        calibrate: bool = True,
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
        self.bins = bins
        self.mass_share = mass_share
        self.calibrate = calibrate
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
        d2_generator_loss(self.d2_generator_loss)  # ValueError naming the choices
        if self.decode not in ("sample", "argmax"):
            raise ValueError(f"decode must be 'sample' or 'argmax', got {self.decode!r}.")
        if self.bins is not None:
            check_positive_int(self.bins, name="bins", minimum=2)
        if self.mass_share is not None:
            share = _check_nonneg(self.mass_share, "mass_share")
            if not 0 < share < 1:
                raise ValueError(f"mass_share must lie in (0, 1) or be None, got {share:g}.")
        if not isinstance(self.calibrate, (bool, np.bool_)):
            raise TypeError(f"calibrate must be True or False, got {self.calibrate!r}.")
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
        X, S = self._encode(frame, numeric, categorical, sensitive, implicit)

        with _torch_settings(self._threads(), deterministic=True):
            step = self._training_step(d2_gen)
            m = min(self.batch_size, len(X))
            per_epoch = math.ceil(len(X) / m)
            total = per_epoch * self.epochs
            history: list[dict[str, Any]] = []
            self.stopped_ = False
            start = time.perf_counter()
            for epoch, idx in self._minibatches(len(X), m, per_epoch):
                if stop is not None and stop.is_set():
                    self.stopped_ = True
                    break
                if len(idx) < 2:
                    continue
                it = len(history) + 1
                event = {"iteration": it, "epoch": epoch + 1, "iterations": total,
                         **step(X[idx], S[idx]), "d2_accuracy": None,
                         "seconds": time.perf_counter() - start}
                if step.use_d2 and (it % self.probe_every == 0 or it == total):
                    event["d2_accuracy"] = step.probe_d2()
                history.append(event)
                if not _carry_on(callback, event):
                    self.stopped_ = True
                    break
            self.iterations_ = len(history)
            self.history_ = pd.DataFrame(
                history,
                columns=["iteration", "epoch", "iterations", *LOSS_KEYS, "d2_accuracy", "seconds"],
            ).astype({"d2_accuracy": float})
            self.sampler_ = self.generator_ if step.average is None else step.average.sampler(self.generator_)
        for net in (self.encoder_, self.generator_, self.d1_, self.d2_):
            net.eval()
        self.ledger_ = synthesizer_ledger()
        return self

    def _encode(self, frame: pd.DataFrame, numeric, categorical, sensitive: str,
                implicit: tuple[str, ...]) -> tuple[torch.Tensor, torch.Tensor]:
        """Fit the codec on every column but s; the encoded records X and the codes of s, S
        (rows with s missing dropped). Sets the fitted attributes that describe the table."""
        columns = [c for c in frame.columns if c != sensitive]
        self.codec_ = TableCodec(numeric, categorical, mass_share=self.mass_share,
                                 bins=self.bins).fit(frame, columns)
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
        self.sensitive_share_ = np.bincount(s_codes, minlength=len(s_cats)) / len(s_codes)
        X = torch.from_numpy(self.codec_.transform(frame))
        S = torch.from_numpy(np.array(s_codes, dtype=np.int64))
        return X, S

    def _build_networks(self, k: int, n_implicit: int, d2_gen: torch.Generator) -> "_Optimisers":
        """E, G, D1 and D2 (Fig. 4), weights drawn from the model's generator (D2's from its
        own), and their Adam optimisers."""
        width = self.codec_.width_
        self.encoder_ = Encoder(width, self._hidden, self.latent_dim)
        self.generator_ = Generator(self.latent_dim, k, tuple(reversed(self._hidden)), width)
        self.d1_ = Discriminator(width + k, self._disc_hidden, 1)
        self.d2_ = Discriminator(max(n_implicit, 1), self._disc_hidden, k)
        for net in (self.encoder_, self.generator_, self.d1_):
            init_weights(net, self._gen)
        init_weights(self.d2_, d2_gen)
        betas = (0.5, 0.9)
        return _Optimisers(
            eg=torch.optim.Adam(list(self.encoder_.parameters()) + list(self.generator_.parameters()),
                                lr=self._lr, betas=betas),
            d1=torch.optim.Adam(self.d1_.parameters(), lr=self._lr, betas=betas),
            d2=torch.optim.Adam(self.d2_.parameters(), lr=self._lr, betas=betas),
        )

    def _training_step(self, d2_gen: torch.Generator) -> "_TrainingStep":
        """Fresh networks and the step that trains them one minibatch at a time."""
        k = len(self.sensitive_values_)
        imp_idx = torch.tensor(self.codec_.indices(self.implicit_), dtype=torch.long)
        optimisers = self._build_networks(k, len(imp_idx), d2_gen)
        return _TrainingStep(
            encoder=self.encoder_, generator=self.generator_, d1=self.d1_, d2=self.d2_,
            optimisers=optimisers,
            average=_WeightAverage(self.generator_, self._ema) if self._ema > 0 else None,
            blocks=self.codec_.blocks_, imp_idx=imp_idx, latent_dim=self.latent_dim,
            class_weight=torch.tensor(1.0 / (k * np.maximum(self.sensitive_share_, 1e-12)),
                                      dtype=torch.float32),
            v2_weight=self._lambda * (len(self.implicit_) if self.v2_scale == "implicit" else 1.0),
            vae_weight=self._vae_w, kl_weight=self._kl, train_v2=self._lambda > 0,
            v2_loss=d2_generator_loss(self.d2_generator_loss), d2_steps=self.d2_steps, gen=self._gen, d2_gen=d2_gen,
        )

    def _minibatches(self, n: int, m: int, per_epoch: int) -> Iterator[tuple[int, torch.Tensor]]:
        """(epoch, row indices) of every minibatch; each epoch's order is drawn when the
        epoch starts (so stopping early leaves the model's generator where a full run's is)."""
        for epoch in range(self.epochs):
            order = torch.from_numpy(self._rng.permutation(n))
            for b in range(per_epoch):
                yield epoch, order[b * m:(b + 1) * m]

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
        with _torch_settings(self._threads()), torch.no_grad():
            s1h = F.one_hot(torch.from_numpy(s_codes), k).float()
            outs = []
            for start in range(0, n, 8192):
                z = torch.randn((len(s1h[start:start + 8192]), self.latent_dim), generator=gen)
                outs.append(activate(self.sampler_(z, s1h[start:start + 8192]),
                                     self.codec_.blocks_))
            Xg = torch.cat(outs).numpy()
        body = self.codec_.inverse(Xg, rng=rng, mode=self.decode, calibrate=bool(self.calibrate))
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
