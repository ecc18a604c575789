"""padding_mask and causal_mask against written-out loops; their errors; the mask picture; use with attention."""
import matplotlib.pyplot as plt
import pytest
import torch

from helpers.attention import scaled_dot_product_attention
from helpers.masks import causal_mask, padding_mask
from helpers.plotting import plot_mask


@pytest.mark.parametrize("lengths, max_len", [([3, 5, 1], None), ([2, 2], 4), ([0, 3], 3), ([4], 4)])
def test_padding_mask_matches_a_loop(lengths, max_len):
    mask = padding_mask(lengths, max_len)
    width = max_len if max_len is not None else max(lengths)
    assert mask.shape == (len(lengths), 1, width) and mask.dtype == torch.bool
    for b, length in enumerate(lengths):
        for j in range(width):
            assert bool(mask[b, 0, j]) == (j < length)


def test_padding_mask_accepts_a_tensor_of_lengths():
    assert torch.equal(padding_mask(torch.tensor([2, 1])), torch.tensor([[[True, True]], [[True, False]]]))


@pytest.mark.parametrize("bad, max_len, words", [
    ([3, 6], 5, "between 0 and max_len=5"),
    ([-1, 2], None, "between 0"),
    ([[1, 2]], None, "1-D"),
    ([1.5, 2.0], None, "integers"),
])
def test_padding_mask_rejects_bad_lengths_with_a_clear_message(bad, max_len, words):
    with pytest.raises(ValueError, match=words):
        padding_mask(bad, max_len)


@pytest.mark.parametrize("n_q, n_k", [(1, 1), (4, 4), (3, 7)])
def test_causal_mask_matches_a_loop(n_q, n_k):
    mask = causal_mask(n_q, n_k)
    assert mask.shape == (n_q, n_k) and mask.dtype == torch.bool
    offset = n_k - n_q
    for i in range(n_q):
        for j in range(n_k):
            assert bool(mask[i, j]) == (j <= i + offset)


def test_causal_mask_square_is_lower_triangular_with_the_diagonal_visible():
    mask = causal_mask(5)
    assert torch.equal(mask, torch.tril(torch.ones(5, 5)).bool())
    assert mask.diagonal().all() and not mask.triu(1).any()


@pytest.mark.parametrize("n_q, n_k", [(0, 3), (4, 2)])
def test_causal_mask_rejects_impossible_sizes(n_q, n_k):
    with pytest.raises(ValueError, match=rf"n_queries={n_q}, n_keys={n_k}"):
        causal_mask(n_q, n_k)


def test_masks_combine_and_hide_keys_in_attention():
    torch.manual_seed(0)
    lengths = [3, 5]
    pad, causal = padding_mask(lengths), causal_mask(5)
    both = pad & causal  # (2, 5, 5)
    Q = K = V = torch.randn(2, 5, 4, dtype=torch.float64)
    _, w = scaled_dot_product_attention(Q, K, V, mask=both)
    assert torch.all(w[~both] == 0)
    assert torch.all(w[0, :, 3:] == 0)  # padding of the short sentence is never looked at
    assert torch.all(w.triu(1) == 0)  # no query looks ahead
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 5, dtype=torch.float64))


def test_plot_mask_draws_token_ticks_labels_and_colours():
    tokens = ["the", "cat", "sat", "<pad>"]
    ax = plot_mask(causal_mask(4) & padding_mask([3], 4)[0], keys=tokens, queries=tokens, title="both")
    assert [t.get_text() for t in ax.get_xticklabels()] == tokens
    assert [t.get_text() for t in ax.get_yticklabels()] == tokens
    assert ax.get_title() == "both" and ax.get_ylabel() == "queries"
    assert ax.get_xlabel().startswith("keys") and "blue: visible, grey: hidden" in ax.get_xlabel()
    image = ax.get_images()[0].get_array()
    assert image[0, 0] == 1.0 and image[0, 1] == 0.0 and image[2, 3] == 0.0
    colours = ax.get_images()[0].get_cmap()
    assert colours(1.0)[:3] != colours(0.0)[:3]
    plt.close(ax.figure)


def test_plot_mask_rejects_wrong_shapes_and_label_counts():
    with pytest.raises(ValueError, match=r"\(n_queries, n_keys\)"):
        plot_mask(torch.ones(2, 3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="2 keys labels given for 3 keys"):
        plot_mask(torch.ones(3, 3, dtype=torch.bool), keys=["a", "b"])
