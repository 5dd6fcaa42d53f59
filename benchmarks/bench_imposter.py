"""IMPOSTER training time on Adult, against a plain VAE of the same width and depth.

Reports the default training's total seconds and seconds per epoch, and the seconds of one
epoch of a plain VAE (the same encoder and generator, reconstruction + KL only, same batch
size, one thread) trained in the same process: the ratio is what D1, D2 and the
adversarial terms cost. Falls back to the census sample when Adult is not available.
The load average is recorded: the machine's cores may be shared.
"""
from __future__ import annotations

import math
import os
import time

import torch
from torch.nn import functional as F

from benchmarks.timing import adult_or_census
from core.imposter import ImposterSynthesizer, detect_implicit
from core.imposter.codec import TableCodec
from core.imposter.networks import Encoder, Generator, init_weights, reconstruction_loss

DEFAULTS = dict(d2_weight=1.0, latent_dim=32, epochs=15, batch_size=500, ema=0.995, hidden=(128, 128),
                disc_hidden=(128,))


def _plain_vae_epoch(dataset, sensitive: str, *, hidden, latent_dim: int, batch_size: int) -> float:
    """Seconds of one epoch of a plain conditional VAE with IMPOSTER's E and G."""
    frame = dataset.frame
    columns = [c for c in frame.columns if c != sensitive]
    codec = TableCodec(dataset.numeric, dataset.categorical).fit(frame, columns)
    X = torch.from_numpy(codec.transform(frame))
    s_codes = torch.from_numpy(frame[sensitive].astype("category").cat.codes.to_numpy().astype("int64"))
    k = int(s_codes.max()) + 1
    gen = torch.Generator().manual_seed(0)
    enc = Encoder(codec.width_, hidden, latent_dim)
    dec = Generator(latent_dim, k, tuple(reversed(hidden)), codec.width_)
    init_weights(enc, gen)
    init_weights(dec, gen)
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3, betas=(0.5, 0.9))
    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        t0 = time.perf_counter()
        order = torch.randperm(len(X), generator=gen)
        for b in range(math.ceil(len(X) / batch_size)):
            idx = order[b * batch_size:(b + 1) * batch_size]
            xb, s1h = X[idx], F.one_hot(s_codes[idx], k).float()
            mu, logvar = enc(xb)
            z = mu + torch.exp(0.5 * logvar) * torch.randn(mu.shape, generator=gen)
            logits = dec(z, s1h)
            kl = (-0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1)).mean()
            loss = reconstruction_loss(logits, xb, codec.blocks_) + kl
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        return time.perf_counter() - t0
    finally:
        torch.set_num_threads(prev)


def run(*, quick: bool = False) -> dict:
    load_before = os.getloadavg()
    dataset, name = adult_or_census()
    params = dict(DEFAULTS, epochs=2) if quick else dict(DEFAULTS)
    det = detect_implicit(dataset.frame, "sex", theta=0.01, beta=0.7, random_state=0)
    t0 = time.perf_counter()
    model = ImposterSynthesizer(**params, random_state=0).fit(dataset, "sex", det.implicit)
    train_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    model.sample(dataset.n_rows)
    sample_s = time.perf_counter() - t0
    vae_epoch_s = min(
        _plain_vae_epoch(dataset, "sex", hidden=params["hidden"], latent_dim=params["latent_dim"],
                         batch_size=params["batch_size"])
        for _ in range(2)
    )
    per_epoch = train_s / params["epochs"]
    return {
        "dataset": name,
        "rows": dataset.n_rows,
        "implicit": list(det.implicit),
        "parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
        "iterations": model.iterations_,
        "torch_threads": 1,
        "imposter_total_seconds": round(train_s, 2),
        "imposter_seconds_per_epoch": round(per_epoch, 3),
        "sample_seconds": round(sample_s, 3),
        "plain_vae_seconds_per_epoch": round(vae_epoch_s, 3),
        "ratio_imposter_epoch_to_plain_vae_epoch": round(per_epoch / vae_epoch_s, 2),
        "default_training_under_3_minutes": train_s < 180 if not quick else None,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "cpu_count": os.cpu_count(),
    }
