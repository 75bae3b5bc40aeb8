"""The measured figures, drawn from the results data (never from the lab directly).

    figures/<id>/gradient-rnn.svg           Exercise 3A: the RNN's gradient by distance, under Equation 8's bound
    figures/<id>/gradient-by-distance.svg   the LSTM's follow-up: RNN against LSTM
    figures/<id>/clipping-demo.svg          Exercise 3B's demonstration

The build (scripts/measure/build.py) calls draw_all(data), which returns the SVG bytes of each figure, and writes
them atomically together with data/<id>/results.json (it also redraws a missing one from the data).  The figures have a transparent background and use
mid-tone colors and a mid-gray ink, so that they read on the site's light and dark themes alike.
"""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from scripts.pages.formatting import fmt_factor, fmt_fixed, fmt_short  # noqa: E402

from .constants import LN65  # noqa: E402

# the measured figures this draws from the data (the diagrams are drawn by diagrams.py)
FIGURE_NAMES = ("gradient-rnn.svg", "gradient-by-distance.svg", "clipping-demo.svg")

# mid-tones with contrast on white and on a near-black page (Okabe-Ito based)
INK = "#8c8c8c"          # text, axes, ticks
GRID = "#8c8c8c"
RNN_COLOR = "#e3691b"    # orange-vermillion
LSTM_COLOR = "#2f93d6"   # medium blue
CLIPPED_COLOR = "#2f93d6"
UNCLIPPED_COLOR = "#e3691b"

STYLE = {
    "svg.fonttype": "none",            # text stays text: crisp, selectable, uses the page's fonts
    "svg.hashsalt": "lab3",            # deterministic element ids: rebuilds diff cleanly
    "font.family": ["DejaVu Sans", "sans-serif"],
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "legend.fontsize": 11,
    "text.color": INK,
    "axes.labelcolor": INK,
    "axes.edgecolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "axes.facecolor": "none",
    "figure.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": GRID,
    "grid.alpha": 0.25,
    "grid.linewidth": 0.7,
    "legend.frameon": False,
    "lines.linewidth": 2.2,
}


def _svg(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buf.getvalue()


def _positive(xs, ys):
    """(x, y) pairs with y > 0 (what a log axis can draw); None and 0 are left out."""
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None and y > 0]
    return [p[0] for p in pts], [p[1] for p in pts]


def _log_axes(g: dict):
    """A figure with one log-scale axis for the gradient by distance, labelled and captioned."""
    fig, ax = plt.subplots(figsize=(8, 4.4))
    ax.set_yscale("log")
    ax.set_xlim(min(g["distance"]) - 1, max(g["distance"]) + 1)
    ax.set_xlabel("distance T − s (characters back from the scored position)")
    ax.set_ylabel("gradient norm (log scale)")
    ax.text(0.0, 1.02, f"mean over {g['chunks']} validation chunks of {g['chunk_length']} characters, loss L at the "
            "last position; norms taken in float64", transform=ax.transAxes, fontsize=10, color=INK, va="bottom")
    return fig, ax


def _mark_float32(ax, g: dict, y_text: float) -> None:
    """Where float32 shows 0 in the RNN's measurement: a norm taken in float32 (a dotted stem from the axis up
    to the curve, the words below-left of the curve), and every entry exactly 0, if that ever happens."""
    rnn = g["rnn_grad_norm"]
    z = g.get("rnn_naive_norm_zero_distance")
    if z is not None:
        ax.plot([z, z], [ax.get_ylim()[0], rnn[z]], color=RNN_COLOR, ls=":", lw=1.5)
        ax.text(z - 2, y_text, f"from {z} back, a norm taken in\nfloat32 would read 0; the\ngradient is not 0",
                color=RNN_COLOR, fontsize=10.5, ha="right", va="bottom")
    a = _shade_all_zero(ax, g)
    if a is not None:
        ax.text(a + 2, y_text * 1e3, f"every entry exactly 0\nin float32 from {a} back", color=RNN_COLOR,
                fontsize=10.5, ha="left", va="bottom")


def _shade_all_zero(ax, g: dict) -> int | None:
    """A log axis cannot draw 0: shade the distances at which every entry of the RNN's float32 gradient is 0."""
    a = g.get("rnn_first_all_zero_distance")
    if a is not None:
        ax.axvspan(a - 0.5, max(g["distance"]) + 0.5, color=RNN_COLOR, alpha=0.08, lw=0)
    return a


def gradient_rnn(data: dict) -> bytes:
    """Exercise 3A: the RNN's measured gradient norm by distance, under Equation 8's bound for the measured ||W||."""
    g = data["gradient_by_distance"]
    dist, rnn, w = g["distance"], g["rnn_grad_norm"], g["rnn_spectral_norm_W"]
    with plt.rc_context(STYLE):
        fig, ax = _log_axes(g)
        x, y = _positive(dist, rnn)
        ax.plot(dist, [rnn[0] * w ** d for d in dist], color=INK, ls="--", lw=1.4,
                label=f"Equation 8's bound for ‖W‖ = {fmt_fixed(w, 1)}")
        ax.plot(x, y, color=RNN_COLOR, label="RNN, measured ‖∂L/∂hₛ‖")
        ax.set_ylim(min(y) / 30, max(y) * 1e4)        # the bound leaves through the top
        _mark_float32(ax, g, min(y) * 3)
        ax.legend(loc="upper right")
        return _svg(fig)


def _ratio_at_50(ax, dist, rnn, lstm) -> None:
    """A double arrow between the two curves at distance 50, labelled with their ratio."""
    if 50 not in dist:
        return
    i = dist.index(50)
    r, l_ = rnn[i], lstm[i]
    if r and l_ and r > 0 and l_ > 0:
        ax.annotate("", xy=(50, l_), xytext=(50, r),
                    arrowprops=dict(arrowstyle="<->", color=INK, lw=1.2, shrinkA=0, shrinkB=0))
        # below-left of the RNN's point: the RNN's curve is above it there, the LSTM's far above
        ax.text(48, r / 10, f"LSTM ÷ RNN\nat distance 50:\n{fmt_factor(l_ / r)}", color=INK,
                fontsize=10.5, va="top", ha="right")


def gradient_by_distance(data: dict) -> bytes:
    """The LSTM's follow-up: the RNN's norm with respect to h_s against the LSTM's with respect to (h_s, c_s)."""
    g = data["gradient_by_distance"]
    dist, rnn, lstm = g["distance"], g["rnn_grad_norm"], g["lstm_grad_norm"]
    with plt.rc_context(STYLE):
        fig, ax = _log_axes(g)
        x, y = _positive(dist, lstm)
        ax.plot(x, y, color=LSTM_COLOR, label="LSTM, ‖∂L/∂(hₛ, cₛ)‖: both states")
        x, y = _positive(dist, rnn)
        ax.plot(x, y, color=RNN_COLOR, label=f"RNN, ‖∂L/∂hₛ‖  (‖W‖ = {fmt_fixed(g['rnn_spectral_norm_W'], 1)})")
        positive = [v for v in list(rnn) + list(lstm) if v is not None and v > 0]
        ax.set_ylim(min(positive) / 30, max(positive) * 5)
        _shade_all_zero(ax, g)
        _ratio_at_50(ax, dist, rnn, lstm)
        ax.legend(loc="lower left")
        return _svg(fig)


def _clipping_curves(ax_g, ax_l, run: dict, label: str, color: str) -> None:
    """One SGD run: its gradient norm (left) and its loss (right), non-finite losses marked along the top."""
    steps = list(range(1, len(run["grad_norm"]) + 1))
    x, y = _positive(steps, run["grad_norm"])
    ax_g.plot(x, y, color=color, lw=1.6, label=label)
    xs = [s for s, v in zip(steps, run["loss"]) if v is not None]
    ys = [v for v in run["loss"] if v is not None]
    ax_l.plot(xs, ys, color=color, lw=1.8, label=label)
    bad = [s for s, v in zip(steps, run["loss"]) if v is None]
    if bad:
        ax_l.plot(bad, [1.0] * len(bad), transform=ax_l.get_xaxis_transform(), ls="none",
                  marker="v", ms=5, color=color, clip_on=False)
        ax_l.text(bad[0], 1.03, "non-finite", transform=ax_l.get_xaxis_transform(), color=color, fontsize=10)


def _clipping_axes(ax_g, ax_l, kappa: float) -> None:
    ax_g.set_yscale("log")
    ax_g.axhline(kappa, color=INK, ls=":", lw=1.4)
    ax_g.set_xlabel("SGD step")
    ax_g.set_ylabel("gradient norm before clipping (log)")
    ax_g.set_title("gradient norm per step", loc="left")
    ax_l.axhline(LN65, color=INK, ls="--", lw=1.4)
    ax_l.set_xlabel("SGD step")
    ax_l.set_ylabel("training loss (nats per character)")
    ax_l.set_title("training loss per step", loc="left")
    ax_l.set_ylim(bottom=0)


def clipping_demo(data: dict) -> bytes:
    c = data["clipping_demo"]
    runs = (("unclipped", "without clipping", UNCLIPPED_COLOR),
            ("clipped", f"clipped at κ = {fmt_short(c['kappa'])}", CLIPPED_COLOR))
    with plt.rc_context(STYLE):
        fig, (ax_g, ax_l) = plt.subplots(1, 2, figsize=(9.5, 4.2))
        for key, label, color in runs:
            _clipping_curves(ax_g, ax_l, c[key], label, color)
        _clipping_axes(ax_g, ax_l, c["kappa"])
        handles = [Line2D([], [], color=col, lw=2, label=lab) for _, lab, col in runs]
        handles += [Line2D([], [], color=INK, lw=1.4, ls=":", label=f"threshold κ = {fmt_short(c['kappa'])} (left)"),
                    Line2D([], [], color=INK, lw=1.4, ls="--",
                           label=f"uniform guess ln 65 ≈ {fmt_fixed(LN65, 2)} (right)")]
        fig.legend(handles=handles, loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.13))
        fig.text(0.5, -0.04, f"plain SGD, learning rate {fmt_short(c['lr'])}, {c['steps']} steps on identical "
                 "batches", ha="center", fontsize=10, color=INK)
        fig.tight_layout()
        return _svg(fig)


def draw_all(data: dict) -> dict[str, bytes]:
    """{file name: SVG bytes} for every measured figure (FIGURE_NAMES)."""
    return {"gradient-rnn.svg": gradient_rnn(data),
            "gradient-by-distance.svg": gradient_by_distance(data),
            "clipping-demo.svg": clipping_demo(data)}

