"""The four networks of IMPOSTER (paper 002, Fig. 4): encoder E, generator G, D1, D2.

All are small multilayer perceptrons (Linear + LeakyReLU). Weights are initialised from an
explicit ``torch.Generator`` so that a seed fixes them without touching torch's global
random state. No dropout or batch norm: both would draw from (or depend on) global state.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import torch
from torch import nn
from torch.nn import functional as F

from core.imposter.codec import Block
from core.validation import check_choice

__all__ = ["mlp", "Encoder", "Generator", "Discriminator", "init_weights", "activate",
           "reconstruction_loss", "D2_GENERATOR_LOSSES", "d2_generator_loss"]


def mlp(in_dim: int, hidden: Sequence[int], out_dim: int) -> nn.Sequential:
    """Linear + LeakyReLU(0.2) layers of widths ``hidden``, then a linear output layer."""
    layers: list[nn.Module] = []
    prev = in_dim
    for width in hidden:
        layers += [nn.Linear(prev, width), nn.LeakyReLU(0.2)]
        prev = width
    layers.append(nn.Linear(prev, out_dim))
    return nn.Sequential(*layers)


def init_weights(module: nn.Module, generator: torch.Generator) -> None:
    """PyTorch's default Linear initialisation, drawn from ``generator``."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.kaiming_uniform_(m.weight, a=math.sqrt(5), generator=generator)
            bound = 1.0 / math.sqrt(m.in_features)
            nn.init.uniform_(m.bias, -bound, bound, generator=generator)


class Encoder(nn.Module):
    """E: record -> (mu, log variance) of the latent code z_l (Eq. 8)."""

    def __init__(self, in_dim: int, hidden: Sequence[int], latent_dim: int) -> None:
        super().__init__()
        self.body = mlp(in_dim, hidden[:-1], hidden[-1]) if len(hidden) > 1 else nn.Linear(in_dim, hidden[0])
        self.act = nn.LeakyReLU(0.2)
        self.mu = nn.Linear(hidden[-1], latent_dim)
        self.logvar = nn.Linear(hidden[-1], latent_dim)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.act(self.body(x))
        return self.mu(h), self.logvar(h).clamp(-10.0, 10.0)


class Generator(nn.Module):
    """G(z | s): latent code and one-hot s -> output logits (see :func:`activate`)."""

    def __init__(self, latent_dim: int, n_sensitive: int, hidden: Sequence[int], out_dim: int) -> None:
        super().__init__()
        self.net = mlp(latent_dim + n_sensitive, hidden, out_dim)

    def forward(self, z: torch.Tensor, s_onehot: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([z, s_onehot], dim=1))


class Discriminator(nn.Module):
    """A classifier on (part of) a record: D1 on (record, s) -> real/fake logit, D2 on the
    implicit columns -> logits over the values of s."""

    def __init__(self, in_dim: int, hidden: Sequence[int], n_out: int) -> None:
        super().__init__()
        self.net = mlp(in_dim, hidden, n_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def activate(logits: torch.Tensor, blocks: Sequence[Block]) -> torch.Tensor:
    """Softmax over each categorical block and each numeric block of modes (point masses
    and quantile bins), sigmoid on a min-max numeric column."""
    parts = []
    for b in blocks:
        chunk = logits[:, b.start:b.stop]
        parts.append(torch.softmax(chunk, dim=1) if b.kind == "categorical" or b.n_modes
                     else torch.sigmoid(chunk))
    return torch.cat(parts, dim=1)


def reconstruction_loss(logits: torch.Tensor, target: torch.Tensor, blocks: Sequence[Block]) -> torch.Tensor:
    """-log p(x | z_l) of Eq. 8: cross entropy per categorical block and per numeric block
    of modes, plus binary cross entropy of each min-max numeric column, summed over
    attributes, averaged over rows."""
    total = logits.new_zeros(())
    for b in blocks:
        chunk = logits[:, b.start:b.stop]
        tgt = target[:, b.start:b.stop]
        if b.kind == "categorical" or b.n_modes:
            total = total + nn.functional.cross_entropy(chunk, tgt.argmax(dim=1), reduction="mean")
        else:
            total = total + nn.functional.binary_cross_entropy_with_logits(chunk, tgt, reduction="mean")
    return total


#: ``loss(logits, s, class_weight)``: G's V2 term from D2's logits on generated records.
D2Loss = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def _v2_minimax(logits: torch.Tensor, s: torch.Tensor, class_weight: torch.Tensor) -> torch.Tensor:
    """Eq. 12: G maximises D2's class-balanced cross entropy."""
    return -F.cross_entropy(logits, s, weight=class_weight)


def _v2_capped(logits: torch.Tensor, s: torch.Tensor, class_weight: torch.Tensor) -> torch.Tensor:
    """Eq. 12, but no reward for pushing D2 below chance on a record: that would plant the
    reversed relation instead of removing it."""
    ce = F.cross_entropy(logits, s, reduction="none").clamp(max=math.log(logits.shape[1]))
    w = class_weight[s]
    return -(w * ce).sum() / w.sum()


def _v2_confusion(logits: torch.Tensor, s: torch.Tensor, class_weight: torch.Tensor) -> torch.Tensor:
    """Pull D2's output to uniform over the values of s."""
    return -(F.log_softmax(logits, dim=1).mean(dim=1)).mean()


#: G's V2 term by the name of ``ImposterSynthesizer(d2_generator_loss=...)``.
D2_GENERATOR_LOSSES: dict[str, D2Loss] = {
    "minimax": _v2_minimax,
    "capped": _v2_capped,
    "confusion": _v2_confusion,
}


def d2_generator_loss(name: str) -> D2Loss:
    """The V2 loss called ``name``; ValueError naming the valid choices for any other."""
    return D2_GENERATOR_LOSSES[check_choice(name, D2_GENERATOR_LOSSES, name="d2_generator_loss")]
