"""scaled_dot_product_attention against torch's fused function (float64), masks, fully masked rows, and errors."""
import math

import pytest
import torch
import torch.nn.functional as F

from helpers.attention import masked_softmax, scaled_dot_product_attention, softmax

DT = torch.float64


def random_case(gen, batch_dims, n_q, n_k, d_k, d_v):
    """Random Q, K, V with the given leading batch dims."""
    def r(*shape):
        return torch.randn(*batch_dims, *shape, generator=gen, dtype=DT) * 2

    return r(n_q, d_k), r(n_k, d_k), r(n_k, d_v)


@pytest.mark.parametrize("case", range(40))
def test_matches_torch_on_random_shapes_and_masks(case):
    gen = torch.Generator().manual_seed(case)
    batch_dims = [(), (3,), (2, 4)][case % 3]
    n_q, n_k, d_k, d_v = (int(torch.randint(1, 9, (1,), generator=gen)) for _ in range(4))
    Q, K, V = random_case(gen, batch_dims, n_q, n_k, d_k, d_v)
    mask = torch.rand(*batch_dims, n_q, n_k, generator=gen) > 0.4
    mask[..., int(torch.randint(0, n_k, (1,), generator=gen))] = True  # torch's NaN/zero choice differs: keep one key
    scale = None if case % 2 else 0.7
    ctx, w = scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)
    ref = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask, scale=scale)
    torch.testing.assert_close(ctx, ref, rtol=1e-10, atol=1e-10)
    assert w.shape == (*batch_dims, n_q, n_k)
    torch.testing.assert_close(w.sum(-1), torch.ones(*batch_dims, n_q, dtype=DT))
    assert torch.all(w[~mask] == 0)


def test_default_scale_is_one_over_sqrt_dk_and_weights_are_over_keys():
    Q = torch.tensor([[1.0, 0.0]], dtype=DT)
    K = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], dtype=DT)
    V = torch.tensor([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]], dtype=DT)
    ctx, w = scaled_dot_product_attention(Q, K, V)
    torch.testing.assert_close(w, torch.softmax(torch.tensor([[1.0, 1.0, 0.0]], dtype=DT) / math.sqrt(2), -1))
    assert torch.allclose(w, torch.tensor([[0.4011, 0.4011, 0.1978]], dtype=DT), atol=1e-4)
    assert torch.allclose(ctx, torch.tensor([[0.5813, 0.4187]], dtype=DT), atol=1e-4)
    _, w1 = scaled_dot_product_attention(Q, K, V, scale=1.0)
    assert torch.allclose(w1, torch.tensor([[0.4223, 0.4223, 0.1554]], dtype=DT), atol=1e-4)


def test_fully_masked_row_gives_zero_weights_zero_context_and_finite_gradients():
    Q, K, V = (torch.randn(2, 3, 4, dtype=DT, requires_grad=True) for _ in range(3))
    mask = torch.ones(2, 3, 3, dtype=torch.bool)
    mask[1, 2] = False
    ctx, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert torch.all(w[1, 2] == 0) and torch.all(ctx[1, 2] == 0)
    assert torch.isfinite(ctx).all() and torch.isfinite(w).all()
    ctx.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (Q, K, V))


def test_integer_masks_and_broadcast_masks_work():
    Q, K, V = (torch.randn(2, 3, 5, dtype=DT) for _ in range(3))
    mask = torch.tensor([[1, 1, 0]])  # (1, n_k): hides the last key for every query and batch
    _, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert torch.all(w[..., 2] == 0)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, dtype=DT))


def test_softmax_survives_huge_scores_and_all_minus_infinity():
    x = torch.tensor([1000.0, 1001.0, 999.0])
    assert torch.allclose(softmax(x), torch.softmax(x, -1))
    assert torch.all(softmax(torch.full((3,), float("-inf"))) == 0)
    w = masked_softmax(torch.zeros(1, 2, 3), torch.tensor([[[True, False, True], [False, False, False]]]))
    assert torch.allclose(w, torch.tensor([[[0.5, 0.0, 0.5], [0.0, 0.0, 0.0]]]))


def test_dropout_zeroes_some_weights_and_rescales_the_rest():
    torch.manual_seed(0)
    Q, K, V = (torch.randn(1, 64, 8, dtype=DT) for _ in range(3))
    _, w0 = scaled_dot_product_attention(Q, K, V)
    _, w = scaled_dot_product_attention(Q, K, V, dropout_p=0.5)
    dropped = w == 0
    assert 0.3 < dropped.double().mean() < 0.7
    torch.testing.assert_close(w[~dropped], w0[~dropped] * 2)


@pytest.mark.parametrize(
    "shapes, words",
    [
        (((2, 3, 4), (2, 5, 3), (2, 5, 6)), ["(2, 3, 4)", "(2, 5, 3)", "(..., n_keys, 4)"]),
        (((2, 3, 4), (2, 5, 4), (2, 6, 6)), ["(2, 5, 4)", "(2, 6, 6)", "(..., 5, d_v)"]),
        (((4,), (5, 4), (5, 2)), ["(4)", "at least 2 dimensions"]),
        (((2, 3, 4), (3, 5, 4), (3, 5, 6)), ["do not match or broadcast"]),
    ],
)
def test_mismatched_shapes_name_what_was_received_and_expected(shapes, words):
    Q, K, V = (torch.zeros(*s) for s in shapes)
    with pytest.raises(ValueError) as err:
        scaled_dot_product_attention(Q, K, V)
    for w in words:
        assert w in str(err.value)


def test_mask_of_the_wrong_shape_is_a_clear_error():
    Q, K, V = (torch.zeros(2, 3, 4) for _ in range(3))
    with pytest.raises(ValueError, match=r"mask has shape \(2, 4\).*\(2, 3, 3\)"):
        scaled_dot_product_attention(Q, K, V, mask=torch.ones(2, 4, dtype=torch.bool))
