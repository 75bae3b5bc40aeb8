#!/usr/bin/env python3
"""Draw the briefing's two diagrams as SVG, from code (`make figures` runs this).

    python3 -m scripts.draw_diagrams            # writes figures/rnn-unrolled.svg, figures/lstm-cell.svg

Figure 1  an RNN drawn as a loop (left) and unrolled over three time steps (right): x_t enters
          through U, h_t passes to the next step through W, z_t leaves through W_o, and the same
          U, W, W_o label every step.
Figure 2  one LSTM cell: the cell state runs along the top from c_{t-1} to c_t, is multiplied by
          the forget gate f_t, then i_t ⊙ c̃_t is added; the output gate o_t scales tanh(c_t) to
          give h_t.  Sigmoid and tanh layers are boxes, elementwise operations are circles.

Hand-written SVG (standard library only): real text (selectable, searchable, scales with the
page), drawn on a white card with mid-contrast colours so it reads the same in the site's light
and dark themes.  The output is deterministic, so a rerun changes nothing unless this file does.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import escape

from scripts import paths
from scripts.files import write_if_changed

# colours (Tailwind-like 700/100 pairs) and fonts
INK = "#1f2937"
MUTED = "#6b7280"
CARD = "#ffffff"
CARD_EDGE = "#d1d5db"
BLUE, BLUE_BG = "#1d4ed8", "#dbeafe"        # inputs x_t
GREEN, GREEN_BG = "#047857", "#d1fae5"      # hidden states h_t
ORANGE, ORANGE_BG = "#c2410c", "#ffedd5"    # outputs z_t, gates
PURPLE, PURPLE_BG = "#6d28d9", "#ede9fe"    # tanh layers
CELL_BG = "#f3f4f6"
MATH_FONT = "'STIX Two Math', 'Latin Modern Math', 'Cambria Math', 'Times New Roman', Times, serif"
SANS_FONT = "'Source Sans Pro', 'Segoe UI', Helvetica, Arial, sans-serif"


# ---------------------------------------------------------------- small SVG vocabulary

def math_text(tokens: list[tuple[str, str]]) -> str:
    """Inline math as tspans: tokens of (kind, text), kind in main|sub|sup|up (upright)."""
    out = []
    for kind, text in tokens:
        t = escape(text)
        if kind == "main":
            out.append(f'<tspan font-style="italic">{t}</tspan>')
        elif kind == "up":
            out.append(f"<tspan>{t}</tspan>")
        elif kind == "sub":
            out.append(f'<tspan font-style="italic" font-size="72%" baseline-shift="sub">{t}</tspan>')
        elif kind == "subup":
            out.append(f'<tspan font-size="72%" baseline-shift="sub">{t}</tspan>')
        elif kind == "sup":
            out.append(f'<tspan font-size="72%" baseline-shift="super">{t}</tspan>')
        else:
            raise ValueError(kind)
    return "".join(out)


def sym(name: str, sub: str | None = None, accent: str | None = None) -> list[tuple[str, str]]:
    """A variable with an optional subscript like t-1 (digits and signs upright)."""
    tokens = [("main", name + (accent or ""))]
    if sub:
        for part in _split_sub(sub):
            tokens.append(part)
    return tokens


def _split_sub(sub: str):
    # "t-1" -> italic t, upright "−1"; "o" -> italic o
    buf, kind = "", None
    for ch in sub:
        k = "sub" if ch.isalpha() else "subup"
        ch = "−" if ch == "-" else ch
        if k != kind and buf:
            yield (kind, buf)
            buf = ""
        kind = k
        buf += ch
    if buf:
        yield (kind, buf)


def text(x, y, content, *, size=20, anchor="middle", color=INK, font=MATH_FONT, weight=None, raw=False):
    w = f' font-weight="{weight}"' if weight else ""
    body = content if raw else escape(content)
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="{font}" font-size="{size}" fill="{color}" '
            f'text-anchor="{anchor}" dominant-baseline="central"{w}>{body}</text>')


def mtext(x, y, tokens, *, size=22, anchor="middle", color=INK):
    return text(x, y, math_text(tokens), size=size, anchor=anchor, color=color, raw=True)


def box(cx, cy, w, h, *, fill, stroke, r=10, sw=2):
    return (f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w}" height="{h}" rx="{r}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')


def line(points, *, color=INK, width=2, arrow=True, dash=None):
    d = "M " + " L ".join(f"{x:.1f} {y:.1f}" for x, y in points)
    m = f' marker-end="url(#arrow-{_marker_id(color)})"' if arrow else ""
    ds = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}" '
            f'stroke-linejoin="round" stroke-linecap="round"{ds}{m}/>')


def path(d, *, color=INK, width=2, arrow=True):
    m = f' marker-end="url(#arrow-{_marker_id(color)})"' if arrow else ""
    return f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}" stroke-linecap="round"{m}/>'


def _marker_id(color: str) -> str:
    return color.lstrip("#")


def markers(colors) -> str:
    out = []
    for c in colors:
        out.append(
            f'<marker id="arrow-{_marker_id(c)}" viewBox="0 0 10 10" refX="8.5" refY="5" markerWidth="7" '
            f'markerHeight="7" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
            f'<path d="M 0 0.8 L 9.5 5 L 0 9.2 z" fill="{c}"/></marker>'.replace(
                'markerWidth="7" markerHeight="7"', 'markerWidth="11" markerHeight="11"'))
    return "<defs>" + "".join(out) + "</defs>"


def op_circle(cx, cy, op, *, r=15, color=INK):
    """⊗ or ⊕ drawn with lines (no reliance on the font having the glyph)."""
    k = r * 0.62
    parts = [f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{CARD}" stroke="{color}" stroke-width="2"/>']
    if op == "times":
        d = k / math.sqrt(2)
        parts.append(f'<path d="M {cx - d:.1f} {cy - d:.1f} L {cx + d:.1f} {cy + d:.1f} M {cx - d:.1f} {cy + d:.1f} '
                     f'L {cx + d:.1f} {cy - d:.1f}" stroke="{color}" stroke-width="2.2" stroke-linecap="round"/>')
    else:
        parts.append(f'<path d="M {cx - k:.1f} {cy} L {cx + k:.1f} {cy} M {cx} {cy - k:.1f} L {cx} {cy + k:.1f}" '
                     f'stroke="{color}" stroke-width="2.2" stroke-linecap="round"/>')
    return "".join(parts)


def dot(cx, cy, color=INK, r=4):
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{color}"/>'


def svg_document(width, height, title, desc, body, arrow_colors) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-labelledby="title desc">\n'
        f'<title id="title">{escape(title)}</title>\n<desc id="desc">{escape(desc)}</desc>\n'
        f'{markers(arrow_colors)}\n'
        f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="14" fill="{CARD}" stroke="{CARD_EDGE}" stroke-width="1.5"/>\n'
        + "\n".join(body) + "\n</svg>\n"
    )


# ---------------------------------------------------------------- Figure 1: RNN, loop and unrolled

def rnn_unrolled() -> str:
    W, H = 980, 400
    body = []
    bw, bh = 78, 46                      # node boxes
    yz, yh, yx = 85, 200, 315            # rows: outputs, hidden states, inputs

    def column(cx, t_sub, *, label_weights=True):
        body.append(box(cx, yz, bw, bh, fill=ORANGE_BG, stroke=ORANGE))
        body.append(mtext(cx, yz + 1, sym("z", t_sub)))
        body.append(box(cx, yh, bw, bh, fill=GREEN_BG, stroke=GREEN))
        body.append(mtext(cx, yh + 1, sym("h", t_sub)))
        body.append(box(cx, yx, bw, bh, fill=BLUE_BG, stroke=BLUE))
        body.append(mtext(cx, yx + 1, sym("x", t_sub)))
        body.append(line([(cx, yx - bh / 2), (cx, yh + bh / 2 + 2)], color=BLUE))
        body.append(line([(cx, yh - bh / 2), (cx, yz + bh / 2 + 2)], color=ORANGE))
        if label_weights:
            body.append(mtext(cx + 12, (yx + yh) / 2, sym("U"), anchor="start", color=BLUE, size=20))
            body.append(mtext(cx + 12, (yh + yz) / 2, sym("W", "o"), anchor="start", color=ORANGE, size=20))

    # left: the loop
    lx = 150
    column(lx, "t")
    # self-loop on h_t through W: leaves the right side, circles round, comes back in from the left
    body.append(path(
        f"M {lx + bw / 2} {yh - 8} C {lx + bw / 2 + 70} {yh - 10}, {lx + bw / 2 + 70} {yh + 62}, {lx} {yh + 62} "
        f"C {lx - bw / 2 - 70} {yh + 62}, {lx - bw / 2 - 70} {yh - 10}, {lx - bw / 2 - 1} {yh - 8}",
        color=GREEN))
    body.append(mtext(lx + bw / 2 + 58, yh + 44, sym("W"), color=GREEN, size=20, anchor="start"))
    body.append(text(lx, 30, "the RNN as a loop", size=17, font=SANS_FONT, color=MUTED))

    # the "unroll" arrow
    ux = 292
    body.append(line([(ux - 26, yh), (ux + 26, yh)], color=MUTED, width=2.5))
    body.append(text(ux, yh - 22, "unroll", size=16, font=SANS_FONT, color=MUTED))

    # right: three steps
    xs = [525, 705, 880]
    subs = ["t-1", "t", "t+1"]
    for cx, s in zip(xs, subs):
        column(cx, s)
    # recurrent connections h_{t-2} -> h_{t-1} -> h_t -> h_{t+1} -> ...
    start = xs[0] - 120
    body.append(line([(start, yh), (xs[0] - bw / 2 - 2, yh)], color=GREEN, dash="2 6", arrow=False))
    body.append(line([(xs[0] - 72, yh), (xs[0] - bw / 2 - 2, yh)], color=GREEN))
    body.append(mtext(xs[0] - 62, yh - 18, sym("W"), color=GREEN, size=20))
    for a, b in zip(xs, xs[1:]):
        body.append(line([(a + bw / 2, yh), (b - bw / 2 - 2, yh)], color=GREEN))
        body.append(mtext((a + b) / 2, yh - 18, sym("W"), color=GREEN, size=20))
    body.append(line([(xs[-1] + bw / 2, yh), (xs[-1] + bw / 2 + 34, yh)], color=GREEN, dash="2 6", arrow=False))
    body.append(text((xs[0] + xs[-1]) / 2, 30, "unrolled over three time steps: the same U, W, Wₒ at every step",
                     size=17, font=SANS_FONT, color=MUTED))
    body.append(mtext(start - 8, yh, sym("h", "t-2"), anchor="end", color=GREEN, size=20))

    # legend along the bottom
    ly = 372
    items = [(BLUE, BLUE_BG, "input (embedding)"), (GREEN, GREEN_BG, "hidden state"), (ORANGE, ORANGE_BG, "logits")]
    x0 = 250
    for c, bg, label in items:
        body.append(f'<rect x="{x0}" y="{ly - 9}" width="26" height="18" rx="4" fill="{bg}" stroke="{c}" stroke-width="2"/>')
        body.append(text(x0 + 34, ly, label, size=16, anchor="start", font=SANS_FONT, color=INK))
        x0 += 190
    return svg_document(
        W, H,
        "Figure 1: an RNN as a loop and unrolled over three time steps",
        "Left: an input x_t enters the hidden state h_t through U, h_t feeds back to itself through W, and the "
        "logits z_t leave through W_o. Right: the same network unrolled over steps t-1, t and t+1; each hidden "
        "state passes to the next through W, and the same U, W and W_o are used at every step.",
        body, [BLUE, GREEN, ORANGE, MUTED])


# ---------------------------------------------------------------- Figure 2: one LSTM cell

def lstm_cell() -> str:
    W, H = 980, 470
    body = []
    top = 100                 # the cell state line
    bus = 360                 # h_{t-1} and x_t, feeding every gate
    gy = 270                  # gate boxes
    gw, gh = 62, 42
    xf, xi, xc, xo = 300, 430, 545, 665
    xadd = 490                # ⊕ on the cell state, above the i ⊙ c̃ product
    xtanh = 780               # tanh(c_t) and the output product
    r = 16

    # the cell body
    body.append(f'<rect x="150" y="52" width="720" height="348" rx="20" fill="{CELL_BG}" stroke="{CARD_EDGE}" stroke-width="1.5"/>')
    body.append(text(168, 74, "one LSTM step", size=16, anchor="start", font=SANS_FONT, color=MUTED))

    # cell state along the top
    body.append(line([(60, top), (xf - r - 2, top)], color=INK, width=4, arrow=False))
    body.append(line([(xf + r, top), (xadd - r - 2, top)], color=INK, width=4, arrow=False))
    body.append(line([(xadd + r, top), (935, top)], color=INK, width=4))
    body.append(mtext(62, top - 26, sym("c", "t-1"), anchor="start", size=24))
    body.append(mtext(935, top - 26, sym("c", "t"), anchor="end", size=24))
    body.append(text((xadd + xtanh) / 2 + 20, top - 22, "cell state", size=16, font=SANS_FONT, color=MUTED))
    body.append(op_circle(xf, top, "times", r=r))
    body.append(op_circle(xadd, top, "plus", r=r))

    # the input bus: h_{t-1} from the left, x_t from below
    body.append(line([(60, bus), (xo, bus)], color=GREEN, width=2.5, arrow=False))
    body.append(mtext(62, bus - 22, sym("h", "t-1"), anchor="start", size=24, color=GREEN))
    body.append(line([(215, 445), (215, bus + 5)], color=BLUE, width=2.5, arrow=False))
    body.append(dot(215, bus, GREEN, 5))
    body.append(mtext(228, 432, sym("x", "t"), anchor="start", size=24, color=BLUE))
    for gx in (xf, xi, xc, xo):
        body.append(dot(gx, bus, GREEN, 4.5))
        body.append(line([(gx, bus), (gx, gy + gh / 2 + 2)], color=GREEN, width=2))

    # the gate layers
    for gx, label, color, bg in [(xf, "σ", ORANGE, ORANGE_BG), (xi, "σ", ORANGE, ORANGE_BG),
                                 (xc, "tanh", PURPLE, PURPLE_BG), (xo, "σ", ORANGE, ORANGE_BG)]:
        body.append(box(gx, gy, gw, gh, fill=bg, stroke=color, r=8))
        body.append(text(gx, gy + 1, label, size=22 if label == "σ" else 19, color=color))

    # forget gate up to the ⊗ on the cell state
    body.append(line([(xf, gy - gh / 2), (xf, top + r + 2)], color=ORANGE))
    body.append(mtext(xf + 10, (gy + top) / 2 + 8, sym("f", "t"), anchor="start", color=ORANGE))
    # i_t ⊙ c̃_t, then up to the ⊕
    ym = 185
    body.append(line([(xi, gy - gh / 2), (xi, ym), (xadd - r - 2, ym)], color=ORANGE))
    body.append(line([(xc, gy - gh / 2), (xc, ym), (xadd + r + 2, ym)], color=PURPLE))
    body.append(op_circle(xadd, ym, "times", r=r))
    body.append(line([(xadd, ym - r), (xadd, top + r + 2)], color=INK))
    body.append(mtext(xi - 10, (gy + ym) / 2 + 10, sym("i", "t"), anchor="end", color=ORANGE))
    body.append(mtext(xc + 10, (gy + ym) / 2 + 10, sym("c", "t", accent="\u0303"), anchor="start", color=PURPLE))
    # output: tanh(c_t) scaled by o_t gives h_t
    body.append(dot(xtanh, top, INK, 5))
    body.append(line([(xtanh, top), (xtanh, 168 - 18 - 2)], color=INK))
    body.append(box(xtanh, 168, 64, 36, fill=PURPLE_BG, stroke=PURPLE, r=18))
    body.append(text(xtanh, 169, "tanh", size=19, color=PURPLE))
    body.append(line([(xtanh, 168 + 18), (xtanh, gy - r - 2)], color=PURPLE))
    body.append(op_circle(xtanh, gy, "times", r=r))
    body.append(line([(xo + gw / 2, gy), (xtanh - r - 2, gy)], color=ORANGE))
    body.append(mtext((xo + gw / 2 + xtanh - r) / 2, gy - 18, sym("o", "t"), color=ORANGE))
    body.append(line([(xtanh + r, gy), (935, gy)], color=GREEN, width=2.5))
    body.append(mtext(935, gy - 24, sym("h", "t"), anchor="end", size=24, color=GREEN))

    # legend
    ly = 440
    x0 = 330
    legend = [
        (lambda x: box(x + 13, ly, 26, 20, fill=ORANGE_BG, stroke=ORANGE, r=4), "sigmoid gate", 150),
        (lambda x: box(x + 13, ly, 26, 20, fill=PURPLE_BG, stroke=PURPLE, r=4), "tanh", 95),
        (lambda x: op_circle(x + 13, ly, "times", r=11), "elementwise product", 200),
        (lambda x: op_circle(x + 13, ly, "plus", r=11), "sum", 70),
    ]
    for shape, label, step in legend:
        body.append(shape(x0))
        body.append(text(x0 + 34, ly, label, size=16, anchor="start", font=SANS_FONT))
        x0 += step
    return svg_document(
        W, H,
        "Figure 2: one LSTM cell",
        "The cell state runs along the top from c_{t-1} to c_t. It is multiplied elementwise by the forget "
        "gate f_t, then the product of the input gate i_t and the candidate c-tilde_t is added. The output "
        "gate o_t scales tanh(c_t) to give h_t. All gates read h_{t-1} and x_t.",
        body, [INK, GREEN, BLUE, ORANGE, PURPLE])


def main() -> None:
    for name, svg in [("rnn-unrolled.svg", rnn_unrolled()), ("lstm-cell.svg", lstm_cell())]:
        path = paths.FIGURES_DIR / name
        write_if_changed(path, svg)
        print(f"draw_diagrams: {paths.rel(path)}")


if __name__ == "__main__":
    main()
