import math

import pytest
import torch

from core.imposter.codec import Block
from core.imposter.networks import (
    D2_GENERATOR_LOSSES,
    Discriminator,
    Encoder,
    Generator,
    activate,
    d2_generator_loss,
    init_weights,
    reconstruction_loss,
)

BLOCKS = (Block("x", "numeric", 0, 1), Block("c", "categorical", 1, 3, categories=("a", "b", "c")))


def test_activate_gives_softmax_blocks_and_sigmoid_numerics():
    logits = torch.randn(8, 4, generator=torch.Generator().manual_seed(0))
    out = activate(logits, BLOCKS)
    assert torch.allclose(out[:, 1:4].sum(dim=1), torch.ones(8))
    assert ((out[:, 0] > 0) & (out[:, 0] < 1)).all()


def test_shapes():
    enc = Encoder(4, (16, 16), 3)
    mu, logvar = enc(torch.zeros(5, 4))
    assert mu.shape == logvar.shape == (5, 3)
    gen = Generator(3, 2, (16,), 4)
    assert gen(torch.zeros(5, 3), torch.zeros(5, 2)).shape == (5, 4)
    assert Discriminator(4, (8,), 2)(torch.zeros(5, 4)).shape == (5, 2)


def test_init_from_a_generator_is_reproducible():
    a, b = Discriminator(4, (8,), 1), Discriminator(4, (8,), 1)
    init_weights(a, torch.Generator().manual_seed(7))
    init_weights(b, torch.Generator().manual_seed(7))
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


def test_init_leaves_the_global_torch_generator_alone():
    net = Discriminator(4, (8,), 1)
    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    init_weights(net, torch.Generator().manual_seed(7))
    assert torch.equal(torch.rand(3), expected)


def test_reconstruction_loss_is_smallest_at_the_target():
    target = torch.tensor([[0.2, 0.0, 1.0, 0.0]])
    good = torch.tensor([[torch.logit(torch.tensor(0.2)), -10.0, 10.0, -10.0]])
    bad = torch.tensor([[3.0, 10.0, -10.0, 0.0]])
    assert reconstruction_loss(good, target, BLOCKS) < reconstruction_loss(bad, target, BLOCKS)


def test_generator_losses_are_looked_up_by_name():
    logits = torch.randn(6, 2, generator=torch.Generator().manual_seed(0))
    s = torch.tensor([0, 1, 0, 1, 1, 0])
    weight = torch.ones(2)
    for name, loss in D2_GENERATOR_LOSSES.items():
        assert d2_generator_loss(name) is loss
        assert torch.isfinite(loss(logits, s, weight))
    # the minimax term is minus D2's cross entropy; the capped one never goes below -log k
    assert torch.equal(D2_GENERATOR_LOSSES["minimax"](logits, s, weight),
                       -torch.nn.functional.cross_entropy(logits, s, weight=weight))
    assert D2_GENERATOR_LOSSES["capped"](logits * 100, 1 - s, weight) >= -math.log(2) - 1e-6
    for bad in ("hinge", None, ["minimax"]):
        with pytest.raises(ValueError, match="one of 'minimax', 'capped', 'confusion'"):
            d2_generator_loss(bad)


def test_a_numeric_block_of_modes_gets_a_softmax_and_a_cross_entropy():
    blocks = (Block("x", "numeric", 0, 3, masses=(0.0,), bins=2), Block("c", "categorical", 3, 2, categories=("a", "b")))
    logits = torch.randn(6, 5, generator=torch.Generator().manual_seed(0))
    out = activate(logits, blocks)
    assert torch.allclose(out[:, 0:3].sum(dim=1), torch.ones(6))
    target = torch.tensor([[1.0, 0.0, 0.0, 0.0, 1.0]])
    good = torch.tensor([[10.0, -10.0, -10.0, -10.0, 10.0]])
    bad = torch.tensor([[-10.0, 10.0, -10.0, -10.0, 10.0]])
    assert reconstruction_loss(good, target, blocks) < 0.01 < reconstruction_loss(bad, target, blocks)
