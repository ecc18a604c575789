"""A new scorer is one class and one line: registered here, it trains inside make_model with no other file edited."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers.attention import SCORERS, Scorer, register_scorer
from helpers.seq2seq import make_batch, make_model
from helpers.toylang import sample_pairs
from helpers.training import train


class CosineAttention(Scorer):
    """score = cos(q, k) · exp(g) with one learned gain g; queries and keys must have one size."""

    needs_equal_sizes = True
    has_parameters = True
    formula = "1"

    @classmethod
    def expected_parameters(cls, query_size, key_size, hidden_size):
        """One gain, whatever the sizes."""
        return 1

    def __init__(self, dropout: float = 0.0):
        super().__init__(dropout)
        self.gain = nn.Parameter(torch.tensor(1.0))

    def score(self, query, keys):
        """(batch, n_q, d), (batch, n_k, d) -> (batch, n_q, n_k)"""
        return F.normalize(query, dim=-1) @ F.normalize(keys, dim=-1).transpose(1, 2) * self.gain.exp()


@pytest.fixture
def cosine_registered():
    """Registers this file's scorer under a name of its own and restores SCORERS exactly as it was."""
    before = dict(SCORERS)
    register_scorer("test_cosine")(CosineAttention)     # the one line a new scorer needs
    yield "test_cosine"
    SCORERS.clear()
    SCORERS.update(before)


def test_a_registered_scorer_is_built_by_name_and_trains(cosine_registered):
    model = make_model("attention", scorer=cosine_registered, emb=16, hidden=24, attn_hidden=16, seed=0)
    assert isinstance(model.decoder.scorer, CosineAttention)
    assert model.config["scorer"] == "test_cosine" and model.config["project_keys"] is True  # read from the class
    assert model.decoder.key_proj.weight.shape == (24, 48), "keys projected to the query size (2H -> H)"
    pairs = sample_pairs(64, 4, 8, seed=0)
    gain_before = model.decoder.scorer.gain.item()
    log = train(model, pairs, steps=15, batch_size=16, progress=False)
    assert log.losses[-1] < log.losses[0] and model.decoder.scorer.gain.item() != gain_before
    _, weights = model(make_batch(pairs[:4], model.src_vocab, model.tgt_vocab))
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:2]))


def test_registering_something_that_is_not_a_scorer_is_refused():
    with pytest.raises(TypeError, match="subclass of helpers.attention.Scorer"):
        register_scorer("bad")(nn.Linear)
    assert "bad" not in SCORERS
