"""One iteration of IMPOSTER's Algorithm 2 and what it needs (paper 002, Eq. 8-13).

The synthesizer's hyperparameters checked into :class:`TrainingSettings`; the four networks
and their optimisers (:func:`build_step`); :class:`TrainingStep`, which trains them on one
minibatch (D1 ascends Eq. 11, D2 Eq. 12, E and G descend Eq. 13) and probes D2; the
exponential moving average of G's weights that sampling uses (:class:`WeightAverage`); and
:func:`torch_settings`, torch's CPU threads and determinism for a block.
:class:`core.imposter.synthesizer.ImposterSynthesizer` drives them.
"""
from __future__ import annotations

import copy
import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

import numpy as np
import torch
from torch.nn import functional as F

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
from core.validation import check_positive_int

__all__ = ["LOSS_KEYS", "HISTORY_COLUMNS", "TrainingSettings", "check_settings", "Optimisers",
           "WeightAverage", "TrainingStep", "build_step", "torch_settings"]

#: the losses of one iteration
LOSS_KEYS = ("d1", "d2", "g", "recon", "kl")
#: the columns of ``ImposterSynthesizer.history_``, one row per iteration
HISTORY_COLUMNS = ("iteration", "epoch", "iterations", *LOSS_KEYS, "d2_accuracy", "seconds")


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


class TrainingSettings(NamedTuple):
    """The hyperparameters that need converting, checked (:func:`check_settings`)."""

    d2_weight: float
    kl_weight: float
    vae_weight: float
    learning_rate: float
    ema: float
    hidden: tuple[int, ...]
    disc_hidden: tuple[int, ...]


def check_settings(params: Mapping[str, Any]) -> TrainingSettings:
    """Check the synthesizer's hyperparameters (its ``get_params()``) before a fit.

    Raises
    ------
    TypeError, ValueError
        A hyperparameter of the wrong type or out of its range, named in the message.
    """
    settings = TrainingSettings(
        d2_weight=_check_nonneg(params["d2_weight"], "d2_weight"),
        kl_weight=_check_nonneg(params["kl_weight"], "kl_weight"),
        vae_weight=_check_nonneg(params["vae_weight"], "vae_weight"),
        learning_rate=_check_nonneg(params["learning_rate"], "learning_rate"),
        ema=_check_nonneg(params["ema"], "ema"),
        hidden=(), disc_hidden=(),
    )
    if params["v2_scale"] not in ("implicit", "none"):
        raise ValueError(f"v2_scale must be 'implicit' or 'none', got {params['v2_scale']!r}.")
    if settings.learning_rate == 0:
        raise ValueError("learning_rate must be greater than 0.")
    check_positive_int(params["latent_dim"], name="latent_dim")
    check_positive_int(params["epochs"], name="epochs")
    check_positive_int(params["batch_size"], name="batch_size", minimum=2)
    check_positive_int(params["probe_every"], name="probe_every")
    check_positive_int(params["d2_steps"], name="d2_steps")
    if settings.ema >= 1:
        raise ValueError(f"ema must lie in [0, 1), got {settings.ema:g}.")
    settings = settings._replace(hidden=_check_hidden(params["hidden"], "hidden"),
                                 disc_hidden=_check_hidden(params["disc_hidden"], "disc_hidden"))
    d2_generator_loss(params["d2_generator_loss"])  # ValueError naming the choices
    _check_decoding(params)
    return settings


def _check_decoding(params: Mapping[str, Any]) -> None:
    """Check the codec's and the sampler's hyperparameters."""
    if params["decode"] not in ("sample", "argmax"):
        raise ValueError(f"decode must be 'sample' or 'argmax', got {params['decode']!r}.")
    if params["bins"] is not None:
        check_positive_int(params["bins"], name="bins", minimum=2)
    if params["mass_share"] is not None:
        share = _check_nonneg(params["mass_share"], "mass_share")
        if not 0 < share < 1:
            raise ValueError(f"mass_share must lie in (0, 1) or be None, got {share:g}.")
    if not isinstance(params["calibrate"], (bool, np.bool_)):
        raise TypeError(f"calibrate must be True or False, got {params['calibrate']!r}.")
    if params["n_threads"] is not None:
        check_positive_int(params["n_threads"], name="n_threads")


@contextmanager
def torch_settings(threads: int, *, deterministic: bool = False) -> Iterator[None]:
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


class Optimisers(NamedTuple):
    """Adam for (E, G) together, for D1 and for D2."""

    eg: torch.optim.Optimizer
    d1: torch.optim.Optimizer
    d2: torch.optim.Optimizer


class WeightAverage:
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
class TrainingStep:
    """One iteration of Algorithm 2 on a minibatch (x, s): D1 ascends Eq. 11, D2 Eq. 12
    (``d2_steps`` times), E and G descend Eq. 13; then G's weight average moves."""

    encoder: Encoder
    generator: Generator
    d1: Discriminator
    d2: Discriminator
    optimisers: Optimisers
    average: WeightAverage | None
    blocks: Sequence[Any]
    imp_idx: torch.Tensor  # the implicit attributes' columns in the encoded record
    latent_dim: int
    class_weight: torch.Tensor  # balances the values of s in D2's cross entropy
    v2_weight: float  # lambda (d2_weight), on the scale of V_VAE
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


def _networks(width: int, k: int, n_implicit: int, latent_dim: int, settings: TrainingSettings,
              gen: torch.Generator, d2_gen: torch.Generator) -> tuple[Encoder, Generator, Discriminator,
                                                                       Discriminator, Optimisers]:
    """E, G, D1 and D2 (Fig. 4), weights drawn from ``gen`` (D2's from ``d2_gen``), and their
    Adam optimisers."""
    encoder = Encoder(width, settings.hidden, latent_dim)
    generator = Generator(latent_dim, k, tuple(reversed(settings.hidden)), width)
    d1 = Discriminator(width + k, settings.disc_hidden, 1)
    d2 = Discriminator(max(n_implicit, 1), settings.disc_hidden, k)
    for net in (encoder, generator, d1):
        init_weights(net, gen)
    init_weights(d2, d2_gen)
    lr, betas = settings.learning_rate, (0.5, 0.9)
    optimisers = Optimisers(
        eg=torch.optim.Adam(list(encoder.parameters()) + list(generator.parameters()), lr=lr, betas=betas),
        d1=torch.optim.Adam(d1.parameters(), lr=lr, betas=betas),
        d2=torch.optim.Adam(d2.parameters(), lr=lr, betas=betas),
    )
    return encoder, generator, d1, d2, optimisers


def build_step(codec: TableCodec, implicit: Sequence[str], sensitive_share: np.ndarray, *,
               settings: TrainingSettings, latent_dim: int, v2_scale: str, v2_loss: str, d2_steps: int,
               gen: torch.Generator, d2_gen: torch.Generator) -> TrainingStep:
    """Fresh networks on ``codec``'s matrix and the step that trains them one minibatch at a time.

    Parameters
    ----------
    codec : TableCodec
        Fitted on the record without s.
    implicit : sequence of str
        The attributes D2 reads.
    sensitive_share : array
        The share of each value of s (D2's class weights balance them).
    settings : TrainingSettings
        The checked hyperparameters.
    latent_dim, v2_scale, v2_loss, d2_steps
        As the synthesizer's parameters of the same meaning.
    gen, d2_gen : torch.Generator
        The streams of E, G, D1 and of D2.
    """
    k = len(sensitive_share)
    imp_idx = torch.tensor(codec.indices(implicit), dtype=torch.long)
    encoder, generator, d1, d2, optimisers = _networks(codec.width_, k, len(imp_idx), latent_dim, settings,
                                                       gen, d2_gen)
    return TrainingStep(
        encoder=encoder, generator=generator, d1=d1, d2=d2, optimisers=optimisers,
        average=WeightAverage(generator, settings.ema) if settings.ema > 0 else None,
        blocks=codec.blocks_, imp_idx=imp_idx, latent_dim=latent_dim,
        class_weight=torch.tensor(1.0 / (k * np.maximum(sensitive_share, 1e-12)), dtype=torch.float32),
        v2_weight=settings.d2_weight * (len(implicit) if v2_scale == "implicit" else 1.0),
        vae_weight=settings.vae_weight, kl_weight=settings.kl_weight, train_v2=settings.d2_weight > 0,
        v2_loss=d2_generator_loss(v2_loss), d2_steps=d2_steps, gen=gen, d2_gen=d2_gen,
    )
