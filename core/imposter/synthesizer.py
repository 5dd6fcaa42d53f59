"""The IMPOSTER synthesizer (paper 002, Algorithm 2 and Eq. 8-13).

An encoder E and a generator G form a VAE over the whole record except the sensitive
attribute s (all public attributes and the class label), with G conditioned on s. D1 sees
(record, s) and tells "real" samples x~ = G(E(x) | s) from "fake" ones x^ = G(z | s),
z ~ N(0, I) (Eq. 11). D2 sees only the implicit-attribute columns of generated records and
predicts s (Eq. 12). E and G minimise Eq. 13, V1 + lambda * V2 + V_VAE; D1 and D2 maximise
it (lambda is the parameter ``d2_weight``). With lambda = 0, D2 has no effect on G and the
model is the VAE-CGAN of the paper's ablation. The synthetic table is G(z | s) with s drawn from its empirical distribution,
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

The training step, the networks' construction and the hyperparameter checks live in
:mod:`core.imposter.training`.

Privacy meaning: this is not differential privacy. It removes the statistical link between
the implicit attributes and s in the published table (what an attacker's classifier can
learn from them); the networks themselves are trained on the raw data.
"""
from __future__ import annotations

import math
import time
import warnings
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from torch.nn import functional as F

from core.data import Dataset, infer_column_types
from core.imposter.codec import TableCodec
from core.imposter.networks import activate
from core.imposter.training import (
    HISTORY_COLUMNS,
    TrainingSettings,
    TrainingStep,
    build_step,
    check_settings,
    torch_settings,
)
from core.privacy.ledger import PrivacyLedger
from core.runtime.progress import Progress, Stop, report, stop_requested
from core.runtime.randomness import RandomState, check_random_state, spawn_seed
from core.validation import DataError, check_positive_int

__all__ = ["ImposterSynthesizer", "synthesizer_ledger"]


def synthesizer_ledger() -> PrivacyLedger:
    """The ledger of an IMPOSTER release: no differential-privacy guarantee (paper 002)."""
    ledger = PrivacyLedger()
    ledger.mark_not_dp(
        "IMPOSTER trains its generator on the raw records without noise: it removes what the "
        "implicit attributes say about the sensitive one, but gives no differential-privacy "
        "guarantee to any record."
    )
    return ledger


class ImposterSynthesizer(BaseEstimator):
    """VAE + conditional GAN with a second discriminator on the implicit attributes.

    Parameters
    ----------
    d2_weight : float
        The weight of the second discriminator D2, lambda in the paper: the weight of V2
        (Eq. 10), how hard G works to make the implicit attributes useless for predicting
        s. 0 keeps every correlation (plain VAE-CGAN); the paper finds about 1 best; much
        larger values trade utility for little extra protection. (Formerly ``lambda_``:
        that keyword still works, with a DeprecationWarning.)
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
        Every this many iterations the history also gets D2's accuracy on a fresh,
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
    events_ : list of dict
        One dict per iteration, appended while ``fit`` runs (read it from a ``progress``
        callback to follow the losses live): ``iteration``, ``epoch``, ``iterations``
        (total planned), the losses ``d1``, ``d2``, ``g``, ``recon``, ``kl``,
        ``d2_accuracy`` (a float every ``probe_every`` iterations, else None) and
        ``seconds`` since training started.
    history_ : DataFrame
        The same, one row per iteration, once ``fit`` returns (``d2_accuracy`` NaN
        between probes).
    iterations_ : int
        Iterations trained.
    stopped_ : bool
        True when training was stopped before the last epoch.
    encoder_, generator_, d1_, d2_ : torch.nn.Module
        The four networks; ``sampler_`` is G with the averaged weights (``ema``).
    codec_ : TableCodec
        The encoding of the record without s.
    rng_, torch_rng_ : numpy.random.Generator, torch.Generator
        The model's own streams, which :meth:`sample` continues.
    """

    def __init__(
        self,
        *,
        d2_weight: float = 1.0,
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
        **deprecated: Any,
    ) -> None:
        if "lambda_" in deprecated:
            warnings.warn("lambda_ is renamed d2_weight", DeprecationWarning, stacklevel=2)
            d2_weight = deprecated.pop("lambda_")
        if deprecated:
            raise TypeError(f"ImposterSynthesizer got an unexpected keyword argument {next(iter(deprecated))!r}.")
        self.d2_weight = d2_weight
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

    def _threads(self) -> int:
        return self.n_threads or 1

    # ------------------------------------------------------------------ fit
    def fit(
        self,
        dataset: Dataset | pd.DataFrame,
        sensitive: str | None = None,
        implicit: Sequence[str] = (),
        *,
        progress: Progress | None = None,
        stop: Stop | None = None,
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
        progress : callable(fraction, message), optional
            Told after every iteration (:mod:`core.runtime.progress`); that iteration's
            losses are the last entry of :attr:`events_`.
        stop : threading.Event, optional
            Set it (from another thread, or from ``progress``) to end training at the next
            iteration: the model keeps what it learned and ``stopped_`` is True.
        """
        settings = check_settings(self.get_params())
        frame, numeric, categorical = self._frame_and_types(dataset)
        sensitive = self._resolve_sensitive(dataset, frame, sensitive)
        implicit = self._resolve_implicit(frame, sensitive, implicit)
        if progress is not None and not callable(progress):
            raise TypeError("progress must be callable.")
        stop_requested(stop)  # TypeError for anything but an event
        if len(frame) < 2:
            raise DataError("IMPOSTER needs at least two rows to train.")

        rng = check_random_state(self.random_state)
        self.rng_ = rng
        self.torch_rng_ = torch.Generator().manual_seed(spawn_seed(rng))
        # D2 gets its own stream so that its size (the implicit set) does not change the
        # draws of E, G and D1: with d2_weight = 0 the model is then exactly the VAE-CGAN.
        d2_gen = torch.Generator().manual_seed(spawn_seed(rng))
        X, S = self._encode(frame, numeric, categorical, sensitive, implicit)

        with torch_settings(self._threads(), deterministic=True):
            step = self._training_step(settings, d2_gen)
            self._train(step, X, S, progress, stop)
            self.sampler_ = self.generator_ if step.average is None else step.average.sampler(self.generator_)
        for net in (self.encoder_, self.generator_, self.d1_, self.d2_):
            net.eval()
        self.ledger_ = synthesizer_ledger()
        return self

    def _train(self, step: TrainingStep, X: torch.Tensor, S: torch.Tensor, progress: Progress | None,
               stop: Stop | None) -> None:
        """The minibatch loop: one :attr:`events_` entry and one report per iteration, until
        the last epoch or ``stop``; then :attr:`history_` and :attr:`iterations_`."""
        m = min(self.batch_size, len(X))
        per_epoch = math.ceil(len(X) / m)
        total = per_epoch * self.epochs
        self.events_: list[dict[str, Any]] = []
        self.stopped_ = False
        start = time.perf_counter()
        for epoch, idx in self._minibatches(len(X), m, per_epoch):
            if stop_requested(stop):
                self.stopped_ = True
                break
            if len(idx) < 2:
                continue
            it = len(self.events_) + 1
            event = {"iteration": it, "epoch": epoch + 1, "iterations": total,
                     **step(X[idx], S[idx]), "d2_accuracy": None,
                     "seconds": time.perf_counter() - start}
            if step.use_d2 and (it % self.probe_every == 0 or it == total):
                event["d2_accuracy"] = step.probe_d2()
            self.events_.append(event)
            report(progress, it / total, f"iteration {it} of {total}")
            if stop_requested(stop) and it < total:
                self.stopped_ = True
                break
        self.iterations_ = len(self.events_)
        self.history_ = pd.DataFrame(self.events_, columns=list(HISTORY_COLUMNS)).astype({"d2_accuracy": float})

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

    def _training_step(self, settings: TrainingSettings, d2_gen: torch.Generator) -> TrainingStep:
        """Fresh networks (set as the fitted ``encoder_``, ``generator_``, ``d1_``, ``d2_``)
        and the step that trains them one minibatch at a time."""
        step = build_step(self.codec_, self.implicit_, self.sensitive_share_, settings=settings,
                          latent_dim=self.latent_dim, v2_scale=self.v2_scale, v2_loss=self.d2_generator_loss,
                          d2_steps=self.d2_steps, gen=self.torch_rng_, d2_gen=d2_gen)
        self.encoder_, self.generator_, self.d1_, self.d2_ = step.encoder, step.generator, step.d1, step.d2
        return step

    def _minibatches(self, n: int, m: int, per_epoch: int) -> Iterator[tuple[int, torch.Tensor]]:
        """(epoch, row indices) of every minibatch; each epoch's order is drawn when the
        epoch starts (so stopping early leaves the model's generator where a full run's is)."""
        for epoch in range(self.epochs):
            order = torch.from_numpy(self.rng_.permutation(n))
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
            rng, gen = self.rng_, self.torch_rng_
        else:
            rng = check_random_state(random_state)
            gen = torch.Generator().manual_seed(spawn_seed(rng))
        k = len(self.sensitive_values_)
        s_codes = rng.choice(k, size=n, p=self.sensitive_share_)
        with torch_settings(self._threads()), torch.no_grad():
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
