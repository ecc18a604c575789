"""Calibrate decoder_attention's training check: the honest decoder and a broken one, several seeds, the margins.

    python -m assignments.calibrate_a3                      # seeds 0 1 2 with the grader's budget
    python -m assignments.calibrate_a3 --steps 200 --seeds 0 1 2 3

The grader's check `test_q2_learns_long_sentences` (assignments/decoder_attention/checks.py, the one home of its
budget) trains the course's small translator with the student's BahdanauDecoder inside the sandbox, which then
translates fresh sentences with that decoder (`harness.train_model`), and requires their BLEU
(`checks.translation_bleu`, outside) to reach GRADING_A3_MIN_BLEU. This script runs those very functions, in this
process, on the master's solution and on a broken decoder that attends to nothing (a uniform average of the encoder
outputs: the fixed-context bottleneck), once per seed (the training seed, and a fresh draw of test sentences per
seed), and prints each BLEU, the CPU time, and the margins: the honest decoder must clear the threshold by at least
5 BLEU on every seed and the broken one must stay below it. Re-run it whenever the data, the models or the budget
change.
"""
from __future__ import annotations

import argparse
import sys
import time

import nbformat

from assignments.build import masters


def master_decoder(name: str = "decoder_attention"):
    """The master's BahdanauDecoder (its setup and solution cells executed; no test cell)."""
    nb = nbformat.read(masters()[name], as_version=4)
    namespace: dict = {}
    block = None
    for cell in nb.cells:
        head = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
        if cell.cell_type == "raw":
            block = head.split()[2] if head.startswith(("# BEGIN SOLUTION", "# BEGIN TESTS")) else \
                (None if head.startswith("# END") else block)
            continue
        if cell.cell_type == "code" and block != "TESTS" and "class BahdanauDecoder" in cell.source or \
                cell.cell_type == "code" and cell.source.lstrip().startswith("import torch"):
            source = "\n".join(line for line in cell.source.splitlines() if not line.startswith("%"))
            exec(compile(source, f"<{name} master>", "exec"), namespace)
    return namespace["BahdanauDecoder"]


def uniform_decoder(honest):
    """A broken decoder: the wiring of `honest`, but the context is the plain average of the real encoder outputs."""
    import torch

    class Uniform(honest):
        def step(self, y_emb, s_prev, enc_outputs, mask):
            real = mask[:, 0].to(enc_outputs.dtype)
            weights = real / real.sum(-1, keepdim=True)
            context = (weights[:, :, None] * enc_outputs).sum(1)
            s = self.cell(torch.cat([y_emb, context], dim=-1), s_prev)
            logits = self.output(torch.tanh(self.pre_output(torch.cat([s, context, y_emb], dim=-1))))
            return logits, s, weights
    return Uniform


def run_seed(decoder, seed: int, steps: int) -> tuple[float, float]:
    """(BLEU on fresh sentences, CPU seconds of training and translating) of one run of the grader's check."""
    from assignments import harness, judge

    checks = judge.load_checks("decoder_attention")
    pairs = checks.long_sentences(10_000 + seed)
    spec = {"cls": "Decoder", "steps": steps, "seed": seed, "model": checks.MODEL, "batch_size": checks.BATCH,
            "lr": checks.LR, "max_len": checks.MAX_TRAIN_LEN, "translate": [list(pair[0]) for pair in pairs]}
    cpu = time.process_time()
    got = harness.train_model(spec, {"Decoder": decoder})
    bleu = checks.translation_bleu(got["translations"], pairs)
    return bleu, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, help="training steps (default: the grader's GRADING_A3_STEPS)")
    args = parser.parse_args(argv)
    import torch

    from assignments import judge

    torch.set_num_threads(1)
    checks = judge.load_checks("decoder_attention")
    steps, threshold = args.steps or checks.STEPS, checks.MIN_BLEU
    honest = master_decoder()
    results = {"honest": [], "broken": []}
    for seed in args.seeds:
        for kind, decoder in (("honest", honest), ("broken", uniform_decoder(honest))):
            bleu, cpu = run_seed(decoder, seed, steps)
            results[kind].append(bleu)
            print(f"seed {seed}, {kind} decoder: BLEU {bleu:.1f} on {checks.SENTENCES} fresh sentences of "
                  f"{checks.TEST_LENGTHS[0]}-{checks.TEST_LENGTHS[1]} words after {steps} steps, {cpu:.0f} s CPU",
                  flush=True)
    worst, best_broken = min(results["honest"]), max(results["broken"])
    ok = worst - threshold >= 5 and best_broken < threshold
    print(f"threshold {threshold:g}; worst honest seed {worst:.1f} (margin {worst - threshold:+.1f}); best broken "
          f"seed {best_broken:.1f} (margin {threshold - best_broken:+.1f} below) "
          f"({'OK' if ok else 'NOT OK: change the threshold or the budget'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
