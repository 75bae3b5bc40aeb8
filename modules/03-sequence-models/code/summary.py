"""The lines the build prints about Module 3's measurements."""
from __future__ import annotations


def summary(data: dict) -> list[str]:
    """What the build prints about the measurements (scripts/measure/build.py)."""
    lines = []
    lines.append("results (test split):")
    lines.append(f"  {'model':<12}{'nats':>8}{'ppl':>9}{'bpc':>7}")
    for k, r in data["models"].items():
        lines.append(f"  {k:<12}{r['test_nats']:>8.4f}{r['perplexity']:>9.3f}{r['bpc']:>7.3f}")
    g = data["gradient_by_distance"]
    c = data["clipping_demo"]
    fg = g["forget_gate"]
    lines.append(f"  ||W|| {g['rnn_spectral_norm_W']:.3f}; RNN gradient: factor {g.get('rnn_factor_per_character')} per "
                 f"character, every float32 entry 0 from distance {g.get('rnn_first_all_zero_distance')}, a float32 norm "
                 f"reads 0 from {g.get('rnn_naive_norm_zero_distance')}; LSTM/RNN at 50: {g['lstm_rnn_ratio_at_50']}; "
                 f"forget gates: mean {fg['mean']:.3f}, above 0.9 {fg['share_above_0.9']:.3f}, above 0.99 "
                 f"{fg['share_above_0.99']:.3f}")
    dp = g["direct_path"]
    lines.append(f"  direct path (Equation 11), gates multiplied over {dp['distance']} steps per unit and chunk: median "
                 f"{dp['median']:.3g}, above 0.5 {dp['share_above_0.5']:.3f}, above 0.1 {dp['share_above_0.1']:.3f}; "
                 f"carries {dp['carried_fall']:.3g} of the gradient back")
    lines.append(f"  clipping demo final loss: unclipped {c['unclipped']['final_loss']}, "
                 f"clipped {c['clipped']['final_loss']}")
    return lines
