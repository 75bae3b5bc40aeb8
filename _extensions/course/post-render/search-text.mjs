// A formula's TeX as plain Unicode text, for the site's search index (passes/search-index.mjs):
// f_t = \sigma(W_f h_{t-1} + …) reads f_t = σ(W_f hₜ₋₁ + …); also ∂L/∂h, ‖W‖, ŷ, 𝓛, ℝ^d.
const SYMBOLS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ", eta: "η",
  theta: "θ", iota: "ι", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π", rho: "ρ",
  sigma: "σ", tau: "τ", upsilon: "υ", phi: "φ", varphi: "φ", chi: "χ", psi: "ψ", omega: "ω",
  Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Xi: "Ξ", Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ",
  Omega: "Ω", partial: "∂", nabla: "∇", infty: "∞", approx: "≈", sim: "∼", simeq: "≃", equiv: "≡",
  le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", ll: "≪", gg: "≫", in: "∈", notin: "∉",
  subset: "⊂", cup: "∪", cap: "∩", times: "×", cdot: "·", odot: "⊙", otimes: "⊗", oplus: "⊕",
  div: "÷", pm: "±", mp: "∓", to: "→", rightarrow: "→", leftarrow: "←", Rightarrow: "⇒",
  Leftarrow: "⇐", leftrightarrow: "↔", mapsto: "↦", propto: "∝", mid: "|", vert: "|", lvert: "\u0001|",
  rvert: "|\u0002", Vert: "‖", lVert: "\u0001‖", rVert: "‖\u0002", langle: "⟨", rangle: "⟩", lfloor: "⌊",
  rfloor: "⌋", lceil: "⌈", rceil: "⌉", dots: "…", ldots: "…", cdots: "⋯", vdots: "⋮", sum: "∑",
  prod: "∏", int: "∫", sqrt: "√", forall: "∀", exists: "∃", neg: "¬", land: "∧", lor: "∨",
  ell: "ℓ", top: "⊤", prime: "′", circ: "∘", star: "⋆", ast: "∗", emptyset: "∅", "%": "%",
  "{": "{", "}": "}", "#": "#", "&": "&", "$": "$", _: "_",
};
// operator names written upright
const OPERATORS = new Set(["tanh", "sinh", "cosh", "sin", "cos", "tan", "exp", "log", "ln", "min", "max",
  "arg", "argmax", "argmin", "sup", "inf", "lim", "det", "dim", "Pr", "softmax"]);
// spacing and sizing commands that leave nothing (or a space) behind
const SPACES = {",": " ", ";": " ", ":": " ", "!": "", quad: " ", qquad: " ", " ": " ", enspace: " ", thinspace: " "};
const DROPPED = new Set(["left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
  "biggl", "biggr", "displaystyle", "textstyle", "limits", "nolimits", "middle"]);
const FONTS = new Set(["mathrm", "text", "textrm", "textit", "textbf", "mathit", "mathbf", "boldsymbol", "bm",
  "mathsf", "mathtt", "operatorname", "mbox", "emph"]);
const ACCENTS = {hat: "\u0302", widehat: "\u0302", tilde: "\u0303", widetilde: "\u0303", bar: "\u0304",
  overline: "\u0305", vec: "\u20d7", dot: "\u0307", ddot: "\u0308"};
const SCRIPT = {A: "𝒜", B: "ℬ", C: "𝒞", D: "𝒟", E: "ℰ", F: "ℱ", G: "𝒢", H: "ℋ", I: "ℐ", J: "𝒥", K: "𝒦",
  L: "ℒ", M: "ℳ", N: "𝒩", O: "𝒪", P: "𝒫", Q: "𝒬", R: "ℛ", S: "𝒮", T: "𝒯", U: "𝒰", V: "𝒱", W: "𝒲",
  X: "𝒳", Y: "𝒴", Z: "𝒵"};
const DOUBLE = {R: "ℝ", N: "ℕ", Z: "ℤ", Q: "ℚ", C: "ℂ", E: "𝔼", P: "ℙ"};
const SUB = {0: "₀", 1: "₁", 2: "₂", 3: "₃", 4: "₄", 5: "₅", 6: "₆", 7: "₇", 8: "₈", 9: "₉", "+": "₊",
  "-": "₋", "−": "₋", "=": "₌", "(": "₍", ")": "₎", a: "ₐ", e: "ₑ", h: "ₕ", i: "ᵢ", j: "ⱼ", k: "ₖ",
  l: "ₗ", m: "ₘ", n: "ₙ", o: "ₒ", p: "ₚ", r: "ᵣ", s: "ₛ", t: "ₜ", u: "ᵤ", v: "ᵥ", x: "ₓ"};
const SUP = {0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹", "+": "⁺",
  "-": "⁻", "−": "⁻", "=": "⁼", "(": "⁽", ")": "⁾", a: "ᵃ", b: "ᵇ", c: "ᶜ", d: "ᵈ", e: "ᵉ", f: "ᶠ",
  g: "ᵍ", h: "ʰ", i: "ⁱ", j: "ʲ", k: "ᵏ", l: "ˡ", m: "ᵐ", n: "ⁿ", o: "ᵒ", p: "ᵖ", r: "ʳ", s: "ˢ",
  t: "ᵗ", u: "ᵘ", v: "ᵛ", w: "ʷ", x: "ˣ", y: "ʸ", z: "ᶻ", T: "ᵀ", "⊤": "ᵀ", "′": "′", "*": "*", "∗": "*"};

/** One TeX group's text: a {…} group, or one token (a command or a character). */
function readArg(s, i) {
  while (s[i] === " ") i++;
  if (s[i] === "{") {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      if (s[j] === "\\") { j++; continue; }
      if (s[j] === "{") depth++;
      else if (s[j] === "}" && --depth === 0) return {arg: s.slice(i + 1, j), end: j + 1};
    }
    return {arg: s.slice(i + 1), end: s.length};
  }
  if (s[i] === "\\") {
    const m = /^\\([A-Za-z]+|.)/.exec(s.slice(i));
    return {arg: m ? m[0] : "\\", end: i + (m ? m[0].length : 1)};
  }
  return {arg: s[i] ?? "", end: i + 1};
}

const simple = (t) => /^[\p{L}\p{N}′]$/u.test(t);       // needs no brackets around it
const script = (text, table, mark) => {
  const chars = [...text];
  if (chars.length && chars.every((c) => table[c])) return chars.map((c) => table[c]).join("");
  return chars.length === 1 ? `${mark}${text}` : `${mark}(${text})`;
};

/** The formula `tex` (the inside of \(…\) or \[…\]) as plain Unicode text. */
export function texToText(tex) {
  let out = "";
  const s = tex.replace(/\\(begin|end)\{[a-z*]+\}(\{[^}]*\})?/g, "").replace(/\\tag\{([^{}]*)\}/g, "   ($1)");
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === "\\") {
      const m = /^\\([A-Za-z]+|.)/.exec(s.slice(i));
      const name = m ? m[1] : "";
      i += m ? m[0].length : 1;
      if (name === "\\") { out += "; "; continue; }
      if (name in SPACES) { out += SPACES[name]; continue; }
      if (DROPPED.has(name)) continue;
      if (OPERATORS.has(name)) { out += name; continue; }
      if (name in SYMBOLS) { out += SYMBOLS[name]; continue; }
      if (FONTS.has(name)) { const {arg, end} = readArg(s, i); out += texToText(arg); i = end; continue; }
      if (name in ACCENTS) {
        const {arg, end} = readArg(s, i); i = end;
        const body = texToText(arg);
        out += [...body].length === 1 ? body + ACCENTS[name] : `${name}(${body})`;
        continue;
      }
      if (name === "mathcal" || name === "mathscr" || name === "mathbb") {
        const {arg, end} = readArg(s, i); i = end;
        const table = name === "mathbb" ? DOUBLE : SCRIPT;
        out += [...arg].map((ch) => table[ch] ?? ch).join("");
        continue;
      }
      if (name === "frac" || name === "dfrac" || name === "tfrac") {
        const a = readArg(s, i), b = readArg(s, a.end); i = b.end;
        const [num, den] = [texToText(a.arg).trim(), texToText(b.arg).trim()];
        const wrap = (t) => (/^[\p{L}\p{N}.∂′ₐ-ₜ]+$/u.test(t) ? t : `(${t})`);
        out += `${wrap(num)}/${wrap(den)}`;
        if (/^\s*[\\\p{L}\p{N}(]/u.test(s.slice(i))) out += " ";   // 1/T ∑, not 1/T∑
        continue;
      }
      if (name === "sqrt") { const {arg, end} = readArg(s, i); i = end; const t = texToText(arg); out += simple(t) ? `√${t}` : `√(${t})`; continue; }
      out += name;                                   // an unknown command: its name, never a backslash
      continue;
    }
    if (c === "_" || c === "^") {
      const {arg, end} = readArg(s, i + 1); i = end;
      const text = texToText(arg).replace(/\s+/g, "");
      out += c === "_" ? script(text, SUB, "_") : script(text, SUP, "^");
      continue;
    }
    if (c === "{" || c === "}") { i++; continue; }
    if (c === "&") { i++; continue; }
    if (c === "~") { out += " "; i++; continue; }
    out += c === "-" ? "−" : c;
    i++;
  }
  // ‖W‖ and |V|, not ‖ W ‖: an opening bar (marked \u0001) takes no space after it, a closing
  // one (\u0002) none before it
  return out.replace(/∂ (?=[^\s=+−)/])/g, "∂").replace(/[ \t]+/g, " ").replace(/ ;/g, ";")
    .replace(/\u0001([|‖]) ?/g, "$1").replace(/ ?([|‖])\u0002/g, "$1").trim();
}

// \(…\) and \[…\] in the index's text (HTML-escaped, as Quarto writes it)
const FORMULA = /\\\(([\s\S]*?)\\\)|\\\[([\s\S]*?)\\\]/g;

/** A search field's text with each formula as plain text. */
export function searchableText(text) {
  return text.replace(FORMULA, (_, inline, display) => {
    const tex = (inline ?? display).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    return texToText(tex).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  });
}

