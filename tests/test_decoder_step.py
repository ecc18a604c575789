"""Chapter 05 writes one decoder step on the page; the helper's BahdanauDecoder.step must be that same computation.

The test takes the notebook's own `def decoder_step` cell (not a copy), runs it, and compares it with the helper on
a random padded batch, step by step, to 1e-6."""
import nbformat
import pytest
import torch

from helpers import NOTEBOOKS_DIR
from helpers.attention import masked_softmax
from helpers.seq2seq import BahdanauDecoder, make_batch, make_model
from helpers.toylang import sample_pairs

NOTEBOOK = NOTEBOOKS_DIR / "05_attention_translation.ipynb"


def notebook_decoder_step():
    """The function defined by the notebook's `def decoder_step` cell, executed with torch and masked_softmax."""
    cells = [c for c in nbformat.read(NOTEBOOK, as_version=4).cells
             if c.cell_type == "code" and "def decoder_step(" in c.source]
    assert len(cells) == 1, f"expected one cell defining decoder_step in {NOTEBOOK.name}, found {len(cells)}"
    namespace = {"torch": torch, "masked_softmax": masked_softmax}
    exec(compile(cells[0].source, f"{NOTEBOOK.name}:decoder_step", "exec"), namespace)
    return namespace["decoder_step"]


@pytest.fixture(scope="module")
def padded():
    """A small random Bahdanau-wired model (float64, eval mode) and a batch of sentences of different lengths."""
    model = make_model("attention", wiring="bahdanau", emb=10, hidden=12, attn_hidden=7, seed=5).double().eval()
    for p in model.parameters():                     # random weights well away from the initial ones
        torch.nn.init.normal_(p, std=0.5, generator=torch.Generator().manual_seed(p.numel()))
    pairs = sample_pairs(5, 4, 9, seed=11) + sample_pairs(2, 15, 18, seed=12)
    batch = make_batch(pairs, model.src_vocab, model.tgt_vocab)
    assert len(set(batch.src_lengths.tolist())) > 2 and not bool(batch.src_mask.all()), "the batch must be padded"
    return model, batch


def test_notebook_step_equals_the_helper_on_a_padded_batch(padded):
    model, batch = padded
    assert isinstance(model.decoder, BahdanauDecoder)
    decoder_step = notebook_decoder_step()
    with torch.no_grad():
        enc = model.encode(batch)
        keys = model.decoder.key_proj(enc.outputs)
        s_mine = s_helper = model.decoder.initial_state(enc)[0]
        for t in range(batch.tgt_in.shape[1]):
            y = batch.tgt_in[:, t]
            mine = decoder_step(model.decoder, y, s_mine, keys, enc)
            helper = model.decoder.step(y, s_helper, keys, enc)
            for name, a, b in zip(("logits", "weights", "state"), mine, helper, strict=True):
                assert a.shape == b.shape, f"step {t}: {name} has shape {tuple(a.shape)}, helper {tuple(b.shape)}"
                assert torch.allclose(a, b, atol=1e-6, rtol=0), f"step {t}: {name} differs from BahdanauDecoder.step"
            assert float(mine[1].masked_select(~enc.mask[:, 0]).abs().max()) == 0.0, "padding got weight"
            s_mine, s_helper = mine[2], helper[2]


def test_the_comparison_can_fail_a_step_that_attends_to_padding(padded):
    """The same comparison rejects a step that ignores the mask: the padded batch makes it visible."""
    model, batch = padded
    decoder_step = notebook_decoder_step()

    def ignores_padding(decoder, y_prev, state, keys, enc):
        e = decoder.embedding(y_prev)
        context, weights = decoder.scorer(state[:, None, :], keys, enc.outputs, mask=None)
        state = decoder.cell(torch.cat([e, context[:, 0]], dim=-1), state)
        hidden = torch.tanh(decoder.pre_output(torch.cat([state, context[:, 0], e], dim=-1)))
        return decoder.output(hidden), weights[:, 0], state

    with torch.no_grad():
        enc = model.encode(batch)
        keys = model.decoder.key_proj(enc.outputs)
        s = model.decoder.initial_state(enc)[0]
        mine = decoder_step(model.decoder, batch.tgt_in[:, 0], s, keys, enc)
        broken = ignores_padding(model.decoder, batch.tgt_in[:, 0], s, keys, enc)
    assert not torch.allclose(mine[1], broken[1], atol=1e-6, rtol=0)
