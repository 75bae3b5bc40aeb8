"""The briefing's two diagrams as SVG, from code (`make figures` runs scripts/pages/draw_diagrams.py, which
writes DIAGRAMS to figures/<id>/rnn-unrolled.svg and figures/<id>/lstm-cell.svg).

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


def svg_document(name, width, height, title, desc, body, arrow_colors) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-labelledby="{name}-title {name}-desc">\n'
        f'<title id="{name}-title">{escape(title)}</title>\n<desc id="{name}-desc">{escape(desc)}</desc>\n'
        f'{markers(arrow_colors)}\n'
        f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="14" fill="{CARD}" stroke="{CARD_EDGE}" stroke-width="1.5"/>\n'
        + "\n".join(body) + "\n</svg>\n"
    )


# ---------------------------------------------------------------- Figure 1: RNN, loop and unrolled

RNN_W, RNN_H = 980, 400
NODE_W, NODE_H = 78, 46                  # node boxes
ROW_Z, ROW_H, ROW_X = 85, 200, 315       # rows: outputs, hidden states, inputs
LOOP_X = 140                             # the loop's column
UNROLL_X = 312                           # the "unroll" arrow
STEP_XS = [525, 705, 880]                # the unrolled columns t-1, t, t+1


def rnn_column(cx: float, t_sub: str) -> list[str]:
    """x -> h -> z for one time step, with the U and W_o labels beside the arrows."""
    return [
        box(cx, ROW_Z, NODE_W, NODE_H, fill=ORANGE_BG, stroke=ORANGE), mtext(cx, ROW_Z + 1, sym("z", t_sub)),
        box(cx, ROW_H, NODE_W, NODE_H, fill=GREEN_BG, stroke=GREEN), mtext(cx, ROW_H + 1, sym("h", t_sub)),
        box(cx, ROW_X, NODE_W, NODE_H, fill=BLUE_BG, stroke=BLUE), mtext(cx, ROW_X + 1, sym("x", t_sub)),
        line([(cx, ROW_X - NODE_H / 2), (cx, ROW_H + NODE_H / 2 + 2)], color=BLUE),
        line([(cx, ROW_H - NODE_H / 2), (cx, ROW_Z + NODE_H / 2 + 2)], color=ORANGE),
        mtext(cx + 12, (ROW_X + ROW_H) / 2, sym("U"), anchor="start", color=BLUE, size=20),
        mtext(cx + 12, (ROW_H + ROW_Z) / 2, sym("W", "o"), anchor="start", color=ORANGE, size=20),
    ]


def rnn_loop() -> list[str]:
    """Left: the RNN as a loop.  The self-loop leaves h_t's right side above the middle and comes back
    in below it, clear of the U and W_o labels on the vertical arrows."""
    right = LOOP_X + NODE_W / 2
    return rnn_column(LOOP_X, "t") + [
        path(f"M {right} {ROW_H - 12} C {right + 78} {ROW_H - 62}, {right + 78} {ROW_H + 62}, {right + 2} {ROW_H + 12}",
             color=GREEN),
        mtext(right + 66, ROW_H, sym("W"), color=GREEN, size=20, anchor="start"),
        text(LOOP_X, 30, "the RNN as a loop", size=17, font=SANS_FONT, color=MUTED),
        line([(UNROLL_X - 26, ROW_H), (UNROLL_X + 26, ROW_H)], color=MUTED, width=2.5),
        text(UNROLL_X, ROW_H - 22, "unroll", size=16, font=SANS_FONT, color=MUTED),
    ]


def rnn_steps() -> list[str]:
    """Right: three steps, h_{t-2} -> h_{t-1} -> h_t -> h_{t+1} -> ... through the same W."""
    xs, half = STEP_XS, NODE_W / 2
    body = [part for cx, s in zip(xs, ["t-1", "t", "t+1"]) for part in rnn_column(cx, s)]
    start = xs[0] - 120
    body += [
        line([(start, ROW_H), (xs[0] - half - 2, ROW_H)], color=GREEN, dash="2 6", arrow=False),
        line([(xs[0] - 72, ROW_H), (xs[0] - half - 2, ROW_H)], color=GREEN),
        mtext(xs[0] - 62, ROW_H - 18, sym("W"), color=GREEN, size=20),
        mtext(start - 8, ROW_H, sym("h", "t-2"), anchor="end", color=GREEN, size=20),
    ]
    for a, b in zip(xs, xs[1:]):
        body += [line([(a + half, ROW_H), (b - half - 2, ROW_H)], color=GREEN),
                 mtext((a + b) / 2, ROW_H - 18, sym("W"), color=GREEN, size=20)]
    body += [
        line([(xs[-1] + half, ROW_H), (xs[-1] + half + 34, ROW_H)], color=GREEN, dash="2 6", arrow=False),
        text((xs[0] + xs[-1]) / 2, 30, "unrolled over three time steps: the same U, W, Wₒ at every step",
             size=17, font=SANS_FONT, color=MUTED),
    ]
    return body


def rnn_legend(y: float = 372, x0: float = 250, step: float = 190) -> list[str]:
    body = []
    for i, (c, bg, label) in enumerate([(BLUE, BLUE_BG, "input (embedding)"), (GREEN, GREEN_BG, "hidden state"),
                                        (ORANGE, ORANGE_BG, "logits")]):
        x = x0 + i * step
        body += [f'<rect x="{x}" y="{y - 9}" width="26" height="18" rx="4" fill="{bg}" stroke="{c}" stroke-width="2"/>',
                 text(x + 34, y, label, size=16, anchor="start", font=SANS_FONT, color=INK)]
    return body


def rnn_unrolled() -> str:
    return svg_document(
        "rnn-unrolled", RNN_W, RNN_H,
        "Figure 1: an RNN as a loop and unrolled over three time steps",
        "Left: an input x_t enters the hidden state h_t through U, h_t feeds back to itself through W, and the "
        "logits z_t leave through W_o. Right: the same network unrolled over steps t-1, t and t+1; each hidden "
        "state passes to the next through W, and the same U, W and W_o are used at every step.",
        rnn_loop() + rnn_steps() + rnn_legend(), [BLUE, GREEN, ORANGE, MUTED])


# ---------------------------------------------------------------- Figure 2: one LSTM cell

LSTM_W, LSTM_H = 980, 470
CELL_Y = 100                   # the cell state line
BUS_Y = 360                    # h_{t-1} and x_t, feeding every gate
GATE_Y = 270                   # gate boxes
GATE_W, GATE_H = 62, 42
X_F, X_I, X_C, X_O = 300, 430, 545, 665
X_ADD = 490                    # ⊕ on the cell state, above the i ⊙ c̃ product
X_TANH = 780                   # tanh(c_t) and the output product
PRODUCT_Y = 185                # the i ⊙ c̃ product
OP_R = 16                      # ⊗ and ⊕ circles
RIGHT_EDGE = 935


def lstm_cell_state() -> list[str]:
    """The cell body, and the cell state along the top through the forget ⊗ and the ⊕."""
    r = OP_R
    return [
        f'<rect x="150" y="52" width="720" height="348" rx="20" fill="{CELL_BG}" stroke="{CARD_EDGE}" stroke-width="1.5"/>',
        text(168, 74, "one LSTM step", size=16, anchor="start", font=SANS_FONT, color=MUTED),
        line([(60, CELL_Y), (X_F - r - 2, CELL_Y)], color=INK, width=4, arrow=False),
        line([(X_F + r, CELL_Y), (X_ADD - r - 2, CELL_Y)], color=INK, width=4, arrow=False),
        line([(X_ADD + r, CELL_Y), (RIGHT_EDGE, CELL_Y)], color=INK, width=4),
        mtext(62, CELL_Y - 26, sym("c", "t-1"), anchor="start", size=24),
        mtext(RIGHT_EDGE, CELL_Y - 26, sym("c", "t"), anchor="end", size=24),
        text((X_ADD + X_TANH) / 2 + 20, CELL_Y - 22, "cell state", size=16, font=SANS_FONT, color=MUTED),
        op_circle(X_F, CELL_Y, "times", r=r),
        op_circle(X_ADD, CELL_Y, "plus", r=r),
    ]


def lstm_inputs_and_gates() -> list[str]:
    """The input bus (h_{t-1} from the left, x_t from below) feeding the four gate layers."""
    body = [
        line([(60, BUS_Y), (X_O, BUS_Y)], color=GREEN, width=2.5, arrow=False),
        mtext(62, BUS_Y - 22, sym("h", "t-1"), anchor="start", size=24, color=GREEN),
        line([(215, 445), (215, BUS_Y + 5)], color=BLUE, width=2.5, arrow=False),
        dot(215, BUS_Y, GREEN, 5),
        mtext(228, 432, sym("x", "t"), anchor="start", size=24, color=BLUE),
    ]
    for gx, label, color, bg in [(X_F, "σ", ORANGE, ORANGE_BG), (X_I, "σ", ORANGE, ORANGE_BG),
                                 (X_C, "tanh", PURPLE, PURPLE_BG), (X_O, "σ", ORANGE, ORANGE_BG)]:
        body += [dot(gx, BUS_Y, GREEN, 4.5), line([(gx, BUS_Y), (gx, GATE_Y + GATE_H / 2 + 2)], color=GREEN, width=2),
                 box(gx, GATE_Y, GATE_W, GATE_H, fill=bg, stroke=color, r=8),
                 text(gx, GATE_Y + 1, label, size=22 if label == "σ" else 19, color=color)]
    return body


def lstm_writes() -> list[str]:
    """f_t up to the ⊗ on the cell state; i_t ⊙ c̃_t up to the ⊕.  The i_t and c̃_t labels sit halfway
    between the product line and the gate boxes, clear of both."""
    r, top_of_gates = OP_R, GATE_Y - GATE_H / 2
    label_y = (PRODUCT_Y + top_of_gates) / 2
    return [
        line([(X_F, top_of_gates), (X_F, CELL_Y + r + 2)], color=ORANGE),
        mtext(X_F + 10, (GATE_Y + CELL_Y) / 2 + 8, sym("f", "t"), anchor="start", color=ORANGE),
        line([(X_I, top_of_gates), (X_I, PRODUCT_Y), (X_ADD - r - 2, PRODUCT_Y)], color=ORANGE),
        line([(X_C, top_of_gates), (X_C, PRODUCT_Y), (X_ADD + r + 2, PRODUCT_Y)], color=PURPLE),
        op_circle(X_ADD, PRODUCT_Y, "times", r=r),
        line([(X_ADD, PRODUCT_Y - r), (X_ADD, CELL_Y + r + 2)], color=INK),
        mtext(X_I - 10, label_y, sym("i", "t"), anchor="end", color=ORANGE),
        mtext(X_C + 10, label_y, sym("c", "t", accent="\u0303"), anchor="start", color=PURPLE),
    ]


def lstm_output() -> list[str]:
    """tanh(c_t) scaled by o_t gives h_t; the o_t label sits above its arrow."""
    r = OP_R
    return [
        dot(X_TANH, CELL_Y, INK, 5),
        line([(X_TANH, CELL_Y), (X_TANH, 168 - 18 - 2)], color=INK),
        box(X_TANH, 168, 64, 36, fill=PURPLE_BG, stroke=PURPLE, r=18),
        text(X_TANH, 169, "tanh", size=19, color=PURPLE),
        line([(X_TANH, 168 + 18), (X_TANH, GATE_Y - r - 2)], color=PURPLE),
        op_circle(X_TANH, GATE_Y, "times", r=r),
        line([(X_O + GATE_W / 2, GATE_Y), (X_TANH - r - 2, GATE_Y)], color=ORANGE),
        mtext((X_O + GATE_W / 2 + X_TANH - r) / 2, GATE_Y - 28, sym("o", "t"), color=ORANGE),
        line([(X_TANH + r, GATE_Y), (RIGHT_EDGE, GATE_Y)], color=GREEN, width=2.5),
        mtext(RIGHT_EDGE, GATE_Y - 24, sym("h", "t"), anchor="end", size=24, color=GREEN),
    ]


def lstm_legend(y: float = 440, x0: float = 330) -> list[str]:
    body = []
    for shape, label, step in [
        (lambda x: box(x + 13, y, 26, 20, fill=ORANGE_BG, stroke=ORANGE, r=4), "sigmoid gate", 150),
        (lambda x: box(x + 13, y, 26, 20, fill=PURPLE_BG, stroke=PURPLE, r=4), "tanh", 95),
        (lambda x: op_circle(x + 13, y, "times", r=11), "elementwise product", 200),
        (lambda x: op_circle(x + 13, y, "plus", r=11), "sum", 70),
    ]:
        body += [shape(x0), text(x0 + 34, y, label, size=16, anchor="start", font=SANS_FONT)]
        x0 += step
    return body


def lstm_cell() -> str:
    return svg_document(
        "lstm-cell", LSTM_W, LSTM_H,
        "Figure 2: one LSTM cell",
        "The cell state runs along the top from c_{t-1} to c_t. It is multiplied elementwise by the forget "
        "gate f_t, then the product of the input gate i_t and the candidate c-tilde_t is added. The output "
        "gate o_t scales tanh(c_t) to give h_t. All gates read h_{t-1} and x_t.",
        lstm_cell_state() + lstm_inputs_and_gates() + lstm_writes() + lstm_output() + lstm_legend(),
        [INK, GREEN, BLUE, ORANGE, PURPLE])



# what scripts/pages/draw_diagrams.py writes into figures/<id>/
DIAGRAMS = {"rnn-unrolled.svg": rnn_unrolled, "lstm-cell.svg": lstm_cell}
