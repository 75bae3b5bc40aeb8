#!/usr/bin/env python3
"""Self-host the site's JavaScript, so the math and the OJS demo work with no network.

    python3 -m scripts.vendor_js                # copy into vendor/ (what `quarto render` runs first)
    python3 -m scripts.vendor_js --post-render  # fix up _site/ (what `quarto render` runs last)
    python3 -m scripts.vendor_js --check [DIR]  # list references to CDNs left in DIR/**/*.html

Without this, Quarto's pages load MathJax from jsdelivr (plus an IE11 polyfill from cdnjs), and
its OJS runtime loads Plot, Inputs and d3 (and htl) from jsdelivr; offline, no equation is typeset
and every OJS cell fails with "RuntimeError: unable to load module".

Pre-render (default): copies, from the npm packages pinned in package-lock.json (installed by
`npm ci` in scripts/setup.sh), into vendor/ (gitignored; `project: resources` copies it to _site/):

  vendor/mathjax/              MathJax 3's browser parts listed in MATHJAX_PARTS: none now (the math
                               is typeset at render time by scripts/typeset.mjs: MathML, the decks' too)
  vendor/observable-libs.js    one ES module exporting d3, Plot, Inputs and htl, built by wrapping
                               the packages' own UMD files (the very files Quarto fetches from the
                               CDN), wired to each other instead of to jsdelivr, setting no globals
  vendor/VERSIONS.json         the versions copied

The course's demo set-up (_extensions/course/demo-setup.ojs) imports vendor/observable-libs.js with
a dynamic import(); that defines Plot, Inputs and d3 in the page's module, which shadows the
runtime's built-ins of the same names, so the runtime never asks the CDN for them.  _quarto.yml
points MathJax at /vendor/mathjax/ (the script tag goes: scripts/typeset.mjs typesets every formula
at render time).

Post-render (--post-render): in every HTML file the render wrote (QUARTO_PROJECT_OUTPUT_FILES, or
every one in the output directory), rewrites the MathJax script's root-relative src (/vendor/...)
to a path relative to the page (so the site also works below a sub-path, e.g. GitHub Pages'
/REPO/), and removes the polyfill.min.js script that pandoc's template adds for MathJax (only
needed by Internet Explorer 11; offline it is a failed request).  A page with OJS cells gets
Quarto's own minified runtime (quarto-ojs-runtime.min.js from Quarto's resources, replacing the
892 KB unminified copy in site_libs/) and loads it on demand (OJS_ON_DEMAND below), not from its
<head>.  Quarto's head scripts are deferred (deferred_head_scripts), their DOMContentLoaded
listeners run one task each (dom_ready_in_turns), every block of text laid out before a jump
into the page (blocks_laid_out_before_a_jump), its navbar search loaded when a reader first
reaches for it (search_on_first_use), its hover previews built on first use
(tippy_on_first_hover), its icon fonts asked for while the page is short (icon_fonts_early), its
headings' link icons written in (static_heading_anchors), the OJS cells' source kept beside the
page until the runtime starts (ojs_contents_on_demand), the hidden source of echo: false OJS
cells left out (without_hidden_cell_code), its SVG figures sized and loaded near the screen
(sized_lazy_images), and the Bootstrap Icons font cut to the icons the site names (subset_icon_font, with fonttools).  Then it reports any remaining CDN reference.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from scripts import paths
from scripts.files import atomic_write, write_if_changed
from scripts.paths import ROOT, rel

# npm package -> the version Quarto's OJS runtime would fetch (and package.json pins)
PINNED = {
    "mathjax": "3.2.2",
    "d3": "7.8.5",
    "@observablehq/plot": "0.6.11",
    "@observablehq/inputs": "0.10.6",
    "htl": "0.3.1",
}

# MathJax's es5/ parts the site serves, only what its pages load: none.  The pages and the decks are
# typeset at render time (scripts/typeset.mjs: MathML the browser draws), and none loads MathJax
# (typeset.mjs removes the script and the deck's math plugin).  Were a page to need MathJax in the
# browser again, its parts go here (e.g. "tex-chtml-full.js", "output/chtml/fonts/woff-v2").
MATHJAX_PARTS: list[str] = []

CDN_PATTERN = re.compile(r"https?://(?:cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com|polyfill\.io)[^\"'\s)]*")
POLYFILL_TAG = re.compile(r"[ \t]*<script\b[^>]*\bsrc=\"https?://[^\"]*polyfill[^\"]*\"[^>]*>\s*</script>[ \t]*\n?")
ROOT_VENDOR_SRC = re.compile(r"(\bsrc=)([\"'])/vendor/")


def package_dir(name: str) -> Path:
    return paths.NODE_MODULES / name


def installed_version(name: str) -> str:
    pkg = package_dir(name) / "package.json"
    if not pkg.exists():
        raise SystemExit(f"vendor_js: {rel(pkg)} is missing; run `npm ci` (make setup) first")
    return json.loads(pkg.read_text())["version"]


def wrap_umd(text: str, deps: dict[str, str]) -> str:
    """A UMD bundle as a function body that returns its exports, CommonJS-style.

    The UMD header tests `typeof exports == "object" && typeof module != "undefined"` first, so
    with `exports`, `module` and `require` in scope it takes the CommonJS branch: it never looks
    for an AMD `define` and never writes a global.  `require` maps the names the bundle asks
    for (e.g. "d3@7.8.5/dist/d3.min.js") to the modules already built in this file.
    """
    table = ", ".join(f"{json.dumps(k)}: {v}" for k, v in deps.items())
    return (
        "(() => {\n"
        "  const module = {exports: {}}, exports = module.exports;\n"
        f"  const deps = {{{table}}};\n"
        "  const require = (name) => {\n"
        "    for (const [prefix, value] of Object.entries(deps)) if (name === prefix || name.startsWith(prefix + \"@\")) return value;\n"
        "    throw new Error(`observable-libs.js: no local copy of ${name}`);\n"
        "  };\n"
        "  (function (module, exports, require) {\n"
        f"{text}\n"
        "  }).call(globalThis, module, exports, require);\n"
        "  return module.exports;\n"
        "})()"
    )


def build_observable_libs() -> str:
    read = lambda name, rel: (package_dir(name) / rel).read_text(encoding="utf-8")
    d3 = read("d3", "dist/d3.min.js")
    htl = read("htl", "dist/htl.min.js")
    plot = read("@observablehq/plot", "dist/plot.umd.min.js")
    inputs = read("@observablehq/inputs", "dist/inputs.min.js")
    # the UMD headers name their dependencies; fail loudly if a new version changes them
    for label, text, needed in [("plot", plot, "d3@"), ("inputs", inputs, "htl@")]:
        if f'require("{needed}' not in text[:600]:
            raise SystemExit(f"vendor_js: unexpected UMD header in {label}; check wrap_umd()")
    versions = ", ".join(f"{k} {installed_version(k)}" for k in PINNED if k != "mathjax")
    return (
        f"// Generated by scripts/vendor_js.py from npm packages ({versions}); do not edit.\n"
        "// d3, Plot, Inputs and htl for the site's OJS cells, served by the site instead of a CDN.\n"
        "// Licenses: d3 ISC, @observablehq/plot ISC, @observablehq/inputs ISC, htl ISC.\n"
        f"const d3 = {wrap_umd(d3, {})};\n"
        f"const htl = {wrap_umd(htl, {})};\n"
        f"const Plot = {wrap_umd(plot, {'d3': 'd3'})};\n"
        f"const Inputs = {wrap_umd(inputs, {'htl': 'htl'})};\n"
        "export {d3, htl, Plot, Inputs};\n"
    )


def vendor(dest: Path = paths.VENDOR) -> None:
    versions = {name: installed_version(name) for name in PINNED}
    wrong = {k: v for k, v in versions.items() if v != PINNED[k]}
    if wrong:
        raise SystemExit(f"vendor_js: installed versions {wrong} differ from the pins {PINNED}; run `npm ci`")
    dest.mkdir(exist_ok=True)
    stamp = dest / "VERSIONS.json"
    mj_src, mj_dest = package_dir("mathjax") / "es5", dest / "mathjax"
    current = stamp.exists() and json.loads(stamp.read_text()) == {**versions, "mathjax-parts": MATHJAX_PARTS}
    if not (current and all((mj_dest / part).exists() for part in MATHJAX_PARTS)):
        if mj_dest.exists():
            shutil.rmtree(mj_dest)
        for part in MATHJAX_PARTS:
            src = mj_src / part
            (mj_dest / part).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, mj_dest / part)
        if MATHJAX_PARTS:
            shutil.copy2(package_dir("mathjax") / "LICENSE", mj_dest / "LICENSE")
    # (with nothing changed, a render's vendoring step only compares this stamp)
    if not (current and (dest / "observable-libs.js").exists()):
        write_if_changed(dest / "observable-libs.js", build_observable_libs())
    write_if_changed(stamp, json.dumps({**versions, "mathjax-parts": MATHJAX_PARTS}, indent=2) + "\n")
    print(f"vendor_js: {rel(dest)}/ ready "
          f"({', '.join(f'{k} {v}' for k, v in versions.items())})")


# Quarto's OJS runtime: a module <script> in the head (892 KB unminified) and, at the end of the body,
# an inline module that starts it.  Quarto's own minified build of the same file ships beside it.
OJS_RUNTIME_TAG = re.compile(r'[ \t]*<script type="module" src="([^"]*)quarto-ojs-runtime\.js"></script>[ \t]*\n?')
OJS_START = re.compile(r'<script type="module">\s*(if \(window\.location\.protocol === "file:"\)[^\n]*\n'
                       r'(?:\s*window\._ojs\.[^\n]*\n)*?)\s*window\._ojs\.runtime\.interpretFromScriptTags\(\);\s*</script>')
OJS_CONTENTS = re.compile(r'<script type="ojs-module-contents">\s*([A-Za-z0-9+/=]+)\s*</script>')
OJS_MODULE = re.compile(r'import\(new URL\("([^"]+)", document\.baseURI\)')
RUNTIME = "quarto-ojs-runtime.js"
RUNTIME_MIN = "quarto-ojs-runtime.min.js"

# The inline module that replaces Quarto's: the page's text, equations and figures paint with no
# OJS script at all; the (minified) runtime is imported once a reader may see a demo: an OJS cell's
# output within a screen of the viewport (a collapsed callout's stay hidden until it opens), a deck's
# current slide holding one (a printed handout: once reveal.js has laid out its pages), printing, or the reader's first scroll, key or touch.  Each demo then draws when it
# nears the screen (seen() in _extensions/course/demo-setup.ojs).  The demos' modules are preloaded
# alongside the runtime, not at load.
OJS_ON_DEMAND = """<script type="module" id="ojs-on-demand">
// scripts/vendor_js.py --post-render: the OJS runtime loads when a demo may be seen, not at load
%(guard)s
const WAKE = ["scroll", "wheel", "keydown", "pointerdown", "touchstart"];
const PRELOAD = %(preload)s;
let started = false, io = null;
function start() {
  if (started) return;
  started = true;
  io?.disconnect();
  for (const type of WAKE) removeEventListener(type, start, true);
  for (const href of PRELOAD) document.head.append(Object.assign(document.createElement("link"), {rel: "modulepreload", href}));
  // the cells' source, kept beside the page until now (ojs_contents_on_demand), fetched with the runtime
  const sources = [...document.querySelectorAll('script[type="ojs-module-contents"][data-src]')].map((s) =>
    fetch(s.dataset.src).then((r) => {
      if (!r.ok) throw new Error(`the demos' source ${s.dataset.src}: HTTP ${r.status}`);
      return r.text();
    }).then((text) => { s.text = text; s.removeAttribute("data-src"); }));
  Promise.all([import(%(runtime)s), ...sources]).then(() => {
%(paths)s
    window._ojs.runtime.interpretFromScriptTags();
  });
}
for (const type of WAKE) addEventListener(type, start, {capture: true, passive: true});
// printed (or a handout printed by scripts/handouts.mjs): every demo is drawn on paper
addEventListener("beforeprint", start);
matchMedia("print").addEventListener("change", (e) => { if (e.matches) start(); });
if (document.querySelector(".reveal") && /print-pdf/i.test(location.search)) {
  // the printed deck: reveal.js lays it out by taking every slide out of the page for a frame and
  // putting them back in .pdf-page boxes, then says "pdf-ready"; a cell run in between would find
  // no output element and its demo would never draw
  if (document.querySelector(".reveal .slides > .pdf-page")) start(); else document.addEventListener("pdf-ready", start);
} else if (document.querySelector(".reveal")) {
  const check = () => { if (document.querySelector(".reveal .slides section.present [id^=ojs-cell-]")) start(); };
  for (const type of ["ready", "slidechanged"]) document.addEventListener(type, check);
  check();
} else {
  io = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) start(); }, {rootMargin: "100%% 0px"});
  for (const cell of document.querySelectorAll("[id^=ojs-cell-]")) io.observe(cell);
}
</script>"""


# The cells' source (Quarto's base64 JSON in a <script type="ojs-module-contents">: 15 of the module
# page's 116 KiB gzipped, base64 compressing poorly) is needed only once the runtime starts, so it is
# kept in a file beside the page and fetched then (OJS_ON_DEMAND); the file's name carries a hash of
# its text, so that a browser's cached copy never meets a newer page.
def ojs_contents_on_demand(html: str, page_stem: str) -> tuple[str, tuple[str, str] | None]:
    """`html` with its OJS cells' source moved out, and (file name, its text) to write beside the
    page; `html` and None when it has none, has it moved already, or has no on-demand loader
    (OJS_ON_DEMAND) to fetch it."""
    contents = OJS_CONTENTS.search(html)
    if not contents or 'id="ojs-on-demand"' not in html:
        return html, None
    text = contents.group(1)
    name = f"{page_stem}.ojs-source-{hashlib.sha256(text.encode()).hexdigest()[:10]}.txt"
    tag = f'<script type="ojs-module-contents" data-src="{name}"></script>'
    return html[:contents.start()] + tag + html[contents.end():], (name, text)


def ojs_on_demand(html: str, runtime: str = RUNTIME_MIN) -> str:
    """A page's OJS runtime (`runtime`: the file in site_libs/quarto-ojs/), loaded on demand
    (OJS_ON_DEMAND); the page unchanged if it has no OJS."""
    tag = OJS_RUNTIME_TAG.search(html)
    start = OJS_START.search(html)
    if not (tag and start):
        return html
    contents = OJS_CONTENTS.search(html)
    modules = []
    if contents:
        sources = "\n".join(c["source"] for c in json.loads(base64.b64decode(contents.group(1)))["contents"])
        modules = list(dict.fromkeys(OJS_MODULE.findall(sources)))
    guard, *paths = [line.strip() for line in start.group(1).strip().splitlines()]
    loader = OJS_ON_DEMAND % {
        "guard": guard,
        "preload": json.dumps(modules),
        "runtime": json.dumps(tag.group(1) + runtime),
        "paths": "\n".join(f"    {line}" for line in paths),
    }
    html = html[:start.start()] + loader + html[start.end():]
    return OJS_RUNTIME_TAG.sub("", html, count=1)


# Quarto's page head loads its libraries (bootstrap, popper, tippy, search, clipboard, headroom, anchor,
# quarto-nav) as plain <script src> tags, each of which holds the page's first paint until it has
# loaded and run, though none of them draws the text: they only wire up the navbar, search, tooltips
# and copy buttons, from DOMContentLoaded handlers.  Deferred, they still run before
# DOMContentLoaded, and in the order they ran before: the classic scripts in their order, then
# Quarto's module scripts (which a browser already defers) moved after them.
def is_deck(html: str) -> bool:
    """Whether `html` is a reveal.js deck (its own scripts start its plugins at once: the steps that
    defer or delay Quarto's scripts leave it alone)."""
    return 'class="reveal"' in html


HEAD_SCRIPT = re.compile(r'[ \t]*(<script\b[^>]*\bsrc="[^"]*"[^>]*>)</script>[ \t]*\n?')


def deferred_head_scripts(html: str) -> str:
    """`html` with its head's classic <script src> tags deferred and its module scripts after them,
    so that they run in the same order after the page has painted; a reveal.js deck (whose plugins
    are started by inline scripts that need them at once) is left as it is."""
    end = html.find("</head>")
    if end < 0 or is_deck(html):
        return html
    head = html[:end]
    tags = list(HEAD_SCRIPT.finditer(head))
    classic = [t for t in tags if not re.search(r'\s(defer|async|type="module")', t.group(1))]
    if not classic:
        return html
    modules = [t for t in tags if 'type="module"' in t.group(1) and t.start() < classic[-1].start()]
    moved = "".join(t.group(0) for t in modules)
    out, at = [], 0
    for t in tags:
        out.append(head[at:t.start()])
        if t in classic:
            out.append(t.group(0).replace("<script", "<script defer", 1))
        elif t not in modules:
            out.append(t.group(0))
        if t is classic[-1]:
            out.append(moved)
        at = t.end()
    out.append(head[at:])
    return "".join(out) + html[end:]


# Quarto's pages make a tippy.js hover preview for every footnote, cross-reference and citation link
# at DOMContentLoaded: on the module page some 80, a quarter of the longest task at load (measured
# in Chromium at 4x CPU: 127 of 499 ms).  After tippy's script, this makes window.tippy note each
# link and its settings, and build its preview when a reader first points at the link (mouseover,
# which a tap also fires, comes before the mouseenter that tippy listens for) or focuses it (focus
# comes before focusin: it is sent again, now to tippy).  Quarto's calls ignore what tippy returns.
TIPPY_TAG = re.compile(r'<script\b[^>]*\bsrc="[^"]*/tippy\.umd\.min\.js"[^>]*></script>\n?')
TIPPY_ON_FIRST_HOVER = """<script type="module" id="tippy-on-first-hover">
// scripts/vendor_js.py --post-render: a hover preview is built when its link is first pointed at or focused
const tippy = window.tippy, pending = new WeakMap();
if (tippy) {
  const lazy = (targets, props = {}) => {
    const els = typeof targets === "string" ? document.querySelectorAll(targets) : targets instanceof Element ? [targets] : targets;
    for (const el of els) pending.set(el, props);
    return [];
  };
  window.tippy = Object.assign(lazy, tippy);
  const wake = (event) => {
    for (let el = event.target; el instanceof Element; el = el.parentElement) {
      if (!pending.has(el)) continue;
      tippy(el, pending.get(el));
      pending.delete(el);
      if (event.type === "focusin") el.dispatchEvent(new FocusEvent("focus"));
      return;
    }
  };
  addEventListener("mouseover", wake, {capture: true, passive: true});
  addEventListener("focusin", wake, {capture: true, passive: true});
}
</script>
"""


def tippy_on_first_hover(html: str) -> str:
    """`html` with its hover previews built on first use (TIPPY_ON_FIRST_HOVER); unchanged if it
    loads no tippy.js or has it already, or is a reveal.js deck (a few previews, made as it starts)."""
    tag = TIPPY_TAG.search(html)
    if not tag or 'id="tippy-on-first-hover"' in html or is_deck(html):
        return html
    return html[:tag.end()] + TIPPY_ON_FIRST_HOVER + html[tag.end():]


# Quarto's search is three scripts in every page's head (autocomplete, fuse and quarto-search: 41 KiB
# gzipped), set up at load (on the module page some 100 ms at 4x CPU, the longest task left after
# the text paints), although a reader opens it on few visits.  Where the search is the navbar's
# overlay, the page instead carries the search button as the scripts would draw it, and loads them
# when a reader first reaches for it: the button pointed at, touched or focused (so they load while
# the finger comes down), clicked, or a search shortcut key; then the search opens as Quarto's would.
# quarto-search.js sets itself up at DOMContentLoaded, long past by then: its listeners are kept
# aside while it loads and called once it has run.  A page reached from a search result (?q=term,
# which quarto-search.js marks on the page) loads the search at once, after Quarto's navbar script
# has made the page's links (the term is taken out of the address until then, so that no link
# carries it, as quarto-search.js itself does).
SEARCH_TAG = re.compile(r'[ \t]*<script\b[^>]*\bsrc="([^"]*/quarto-search/(?:autocomplete\.umd|fuse\.min|quarto-search)\.js)"[^>]*></script>[ \t]*\n?')
SEARCH_BOX = '<div id="quarto-search" class="" title="Search"></div>'
# the button's icon path, read from the site's own autocomplete-js (where it builds aa-SubmitIcon)
SUBMIT_ICON_PATH = re.compile(r'"aa-SubmitIcon".{0,600}?setAttribute\("d",\s*"([^"]+)"\)', re.S)


def search_icon_path(site: Path) -> str | None:
    """The path autocomplete-js draws its search icon with, from the site's autocomplete.umd.js, or None."""
    js = site / "site_libs" / "quarto-search" / "autocomplete.umd.js"
    m = SUBMIT_ICON_PATH.search(js.read_text(encoding="utf-8", errors="replace")) if js.exists() else None
    return m.group(1) if m else None


def search_standin(icon_path: str) -> str:
    """The markup autocomplete-js draws for the overlay's button (what the page's CSS styles), marked
    as a stand-in."""
    icon = (f'<svg class="aa-SubmitIcon" viewBox="0 0 24 24" width="20" height="20" fill="currentColor">'
            f'<path d="{icon_path}"></path></svg>')
    return ('<div id="quarto-search" class="type-overlay" title="Search"><div class="aa-Autocomplete search-standin">'
            '<button type="button" class="aa-DetachedSearchButton" title="Search" aria-label="Search">'
            f'<div class="aa-DetachedSearchButtonIcon">{icon}</div><div class="aa-DetachedSearchButtonPlaceholder">'
            '</div><div class="aa-DetachedSearchButtonQuery"></div></button></div></div>')


SEARCH_ON_FIRST_USE = """<script id="search-on-first-use">
// scripts/vendor_js.py --post-render: Quarto's search loads when a reader first reaches for it
{
  const sources = %s, keys = %s;
  let loading = null;
  const load = () => loading ??= new Promise((resolve, reject) => {
    // quarto-search.js sets itself up at DOMContentLoaded (past by now), and a page reached from a
    // search result at "pageshow" (past too): those listeners are kept aside and called once it has run
    const ready = [], shown = [];
    const onDocument = document.addEventListener, onWindow = window.addEventListener;
    document.addEventListener = function (type, listener, options) {
      return type === "DOMContentLoaded" ? void ready.push(listener) : onDocument.call(this, type, listener, options);
    };
    const next = (i) => {
      if (i < sources.length) {
        const script = Object.assign(document.createElement("script"), {src: sources[i]});
        script.onload = () => next(i + 1);
        script.onerror = () => { document.addEventListener = onDocument; loading = null; reject(new Error(`the search's ${sources[i]} did not load`)); };
        return void document.head.append(script);
      }
      document.addEventListener = onDocument;
      const standin = document.querySelector("#quarto-search .search-standin");
      const focused = standin?.contains(document.activeElement);
      standin?.remove();
      window.addEventListener = function (type, listener, options) {
        return type === "pageshow" ? void shown.push(listener) : onWindow.call(this, type, listener, options);
      };
      try { for (const listener of ready) listener.call(document, new Event("DOMContentLoaded")); }
      finally { window.addEventListener = onWindow; }
      for (const listener of shown) listener.call(window, new PageTransitionEvent("pageshow", {persisted: false}));
      // a keyboard reader on the stand-in button is now on the search's own, in its place
      if (focused) document.querySelector("#quarto-search .aa-DetachedSearchButton")?.focus();
      removeEventListener("keyup", onKey);
      resolve();
    };
    next(0);
  });
  const open = () => load().then(() => window.quartoOpenSearch?.());
  // the shortcut keys, as quarto-search.js takes them (not while a form field or button has the focus)
  const onKey = (event) => {
    const focused = document.activeElement;
    if (!keys.includes(event.key) || focused?.isContentEditable || /^(input|select|textarea|button|option)$/i.test(focused?.tagName)) return;
    event.preventDefault();
    open();
  };
  addEventListener("keyup", onKey);
  const standin = (event) => event.target instanceof Element && event.target.closest("#quarto-search .search-standin");
  for (const type of ["pointerover", "touchstart", "focusin"])
    addEventListener(type, (event) => { if (standin(event)) load(); }, {passive: true});
  addEventListener("click", (event) => { if (standin(event)) open(); });
  const address = new URL(location.href);
  if (address.searchParams.has("q") || address.searchParams.has("show-results")) {
    const arrived = address.href;
    address.searchParams.delete("q");
    history.replaceState(history.state, "", address);
    // after the load event, and after Quarto's DOMContentLoaded set-up (dom_ready_in_turns: earlier timers)
    addEventListener("load", () => setTimeout(() => { history.replaceState(history.state, "", arrived); load(); }));
  }
}
</script>
"""


def search_on_first_use(html: str, icon_path: str | None) -> str:
    """`html` whose navbar search (an overlay) loads its scripts when first reached for
    (SEARCH_ON_FIRST_USE), its button drawn with `icon_path` (search_icon_path) until then;
    unchanged for a deck, a page without the three scripts or the empty search box, a search of
    another type (a text box in the sidebar draws more than a button), or no icon to draw."""
    tags = list(SEARCH_TAG.finditer(html))
    options = re.search(r'<script id="quarto-search-options" type="application/json">(.*?)</script>', html, re.S)
    if is_deck(html) or len(tags) != 3 or SEARCH_BOX not in html or not options or not icon_path:
        return html
    settings = json.loads(options.group(1))
    if settings.get("type") != "overlay" or settings.get("location") != "navbar":
        return html
    loader = SEARCH_ON_FIRST_USE % (json.dumps([t.group(1) for t in tags]), json.dumps(settings.get("keyboard-shortcut") or []))
    out = html[:tags[0].start()] + loader + html[tags[0].end():tags[1].start()] + html[tags[1].end():tags[2].start()] + html[tags[2].end():]
    return out.replace(SEARCH_BOX, search_standin(icon_path), 1)


# At DOMContentLoaded, Quarto's scripts each set up their part of the page (the navbar's offsets and
# links, the headings' anchors, the cross-references, the table of contents) in ONE
# task: on the module page some 200 ms at 4x CPU, the longest after the text paints.  This runs each
# of those listeners in a task of its own, in the same order, so that none blocks a reader's tap for
# long.  It goes first in the head, before any script adds a listener (an inline classic script runs
# as the parser reaches it; the deferred ones and the body's inline one add theirs after it).
# "Before the event" is a flag its own first listener sets, not document.readyState: the deferred
# scripts (deferred_head_scripts), Quarto's heaviest listeners among them, run when readyState is
# already "interactive".
DOM_READY_IN_TURNS = """<script id="dom-ready-in-turns">
// scripts/vendor_js.py --post-render: each DOMContentLoaded listener runs in a task of its own, in order
{
  const add = document.addEventListener;
  let fired = false;
  add.call(document, "DOMContentLoaded", () => { fired = true; });
  document.addEventListener = function (type, listener, options) {
    if (type !== "DOMContentLoaded" || fired || typeof listener !== "function")
      return add.call(this, type, listener, options);
    return add.call(this, type, (event) => setTimeout(() => listener.call(this, event)), options);
  };
}
</script>
"""


def dom_ready_in_turns(html: str) -> str:
    """`html` whose DOMContentLoaded listeners run one task each (DOM_READY_IN_TURNS, first in its
    head); a deck (reveal.js starts from them) or a page done before is left as it is."""
    if is_deck(html) or 'id="dom-ready-in-turns"' in html:
        return html
    first = re.search(r"<script\b", html[:html.find("</head>")] if "</head>" in html else "")
    if not first:
        return html
    return html[:first.start()] + DOM_READY_IN_TURNS + html[first.start():]


# site.css lays out the text's blocks only near the screen (content-visibility: auto): each keeps a
# place of two lines until first drawn (what it saves at load: README, Performance).  A jump into
# the page would land on those kept places and then drift as the blocks above the target grew (on a phone, a screen or more), so before any jump the page lays out every
# block (the class below, which site.css reads): at load when the address names a place (#id), asks
# the search to mark a term (?q=) or is a reload or a return (the browser restores a scrolled
# place); before it follows it, on any click on a link to a place in this page (the table of
# contents, a cross-reference, a footnote; Enter on a link is a click too); and as the reader leaves
# or hides the page, so that the place the browser keeps for a reload or a return is the laid-out
# one (scroll anchoring holds the text on screen still as the blocks above it grow).  Printing draws all.
# The browser may keep the place it saved before those blocks grew (Chromium sends it on a timer: a
# reload soon after a scroll came back some 3,000 px off in the rendered-site suite), so the page also
# notes, as it is left, the drawn element with an id nearest above the top third of the screen and
# where it stood; after a reload it puts that element back there, unless the reader has scrolled first.
ALL_BLOCKS_CLASS = "all-blocks-laid-out"
BLOCKS_BEFORE_A_JUMP = """<script id="blocks-laid-out-before-a-jump">
// scripts/vendor_js.py --post-render: every block laid out before a jump into the page (site.css)
{
  const layOutAll = () => document.documentElement.classList.add("%s");
  const arrival = performance.getEntriesByType("navigation")[0];
  if (location.hash.length > 1 || /[?&]q=/.test(location.search) || (arrival && arrival.type !== "navigate")) layOutAll();
  addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[href*='#']");
    if (link && link.hash.length > 1 && link.origin === location.origin && link.pathname === location.pathname) layOutAll();
  }, true);
  addEventListener("hashchange", layOutAll);
  addEventListener("beforeprint", layOutAll);
  // leaving (or hidden, which on a phone may be the last chance): the browser keeps the scrolled
  // place for a reload or a return, and keeps it right only if the blocks above are laid out now;
  // the place is noted too (an element with an id and its distance from the top of the screen),
  // before that, as the reader sees it: measured once the blocks are laid out, before a frame has
  // let scroll anchoring hold the text still, it named a place 2,500 px off (the rendered-site
  // suite's reload check, one run in five).  Only drawn elements are measured: measuring one inside
  // a block not yet laid out would lay that block out there and then, with the same effect.  And
  // none inside a cell (a demo's): the OJS runtime fills and moves those after load, so that one
  // put back at load stood 433 px from where the reader had it once the demo was drawn.
  const KEY = "place-on-leaving:" + location.pathname;
  const drawn = (el) => el.checkVisibility ? el.checkVisibility({contentVisibilityAuto: true}) : el.getClientRects().length > 0;
  // (once: leaving sends pagehide and then visibilitychange, and by the second the blocks are
  // laid out, with no frame in between)
  let noted = false;
  const beforeLeaving = () => {
    if (noted) return;
    noted = true;
    const line = innerHeight / 3;
    let best = null, bestTop = -Infinity;
    for (const el of document.querySelectorAll("main [id]")) {
      if (el.closest(".cell") || !drawn(el)) continue;
      const top = el.getBoundingClientRect().top;
      if (top <= line && top > bestTop) [best, bestTop] = [el, top];
    }
    try { sessionStorage.setItem(KEY, JSON.stringify(best && scrollY > 0 ? [best.id, bestTop] : null)); } catch {}
    layOutAll();
  };
  addEventListener("pagehide", beforeLeaving);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") beforeLeaving(); else noted = false; });
  addEventListener("pageshow", () => { noted = false; });
  // back after a reload: the noted element where it stood, once the browser has put the page back
  let place = null;
  try { place = arrival && arrival.type === "reload" && JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch {}
  if (place) {
    let moved = false;
    const readerMoved = () => { moved = true; };
    for (const type of ["wheel", "touchstart", "keydown", "mousedown"]) addEventListener(type, readerMoved, {once: true, passive: true, capture: true});
    addEventListener("load", () => requestAnimationFrame(() => {
      const el = document.getElementById(place[0]);
      if (el && !moved) scrollBy(0, el.getBoundingClientRect().top - place[1]);
    }));
  }
}
</script>
""" % ALL_BLOCKS_CLASS


def blocks_laid_out_before_a_jump(html: str) -> str:
    """`html` with BLOCKS_BEFORE_A_JUMP first in its head; a deck (no <main>, no such blocks) or a
    page done before is left as it is."""
    if is_deck(html) or 'id="blocks-laid-out-before-a-jump"' in html:
        return html
    # after the character set's <meta>, which must come in the first 1,024 bytes
    head = re.search(r"<head\b[^>]*>\n?(?:\s*<meta charset=[^>]*>\n?)?", html)
    if not head:
        return html
    return html[:head.end()] + BLOCKS_BEFORE_A_JUMP + html[head.end():]


# A web font that loads while the page is already long makes Chromium lay out every line again
# ("Fonts changed"): on the module page, at 4x CPU, some 4,200 objects in 150-250 ms, once for
# Bootstrap Icons (first used late in the page) and twice for AnchorJS's own icon font (its
# @font-face is added by anchors.add() at DOMContentLoaded, and its link icon uses it).  So the
# page's head holds AnchorJS's baseline style from the start (the rules its own script would insert,
# taken from the site's anchor.min.js, before the page's stylesheets as AnchorJS puts them: finding
# it, the script adds none), and asks for both icon fonts at its end, while the page is still short.
ANCHOR_RULE = re.compile(r"\.sheet\.insertRule\(([\"'])(.*?)\1,\w+\.sheet\.cssRules\.length\)")
FIRST_STYLESHEET = re.compile(r'<link\b[^>]*\brel="stylesheet"|<style\b')
ICON_FONTS = """<script id="icon-fonts-early">for (const font of %s) document.fonts.load(`1em ${font}`);</script>
"""


def anchor_rules(site: Path) -> list[str]:
    """The CSS rules AnchorJS inserts (from the site's anchor.min.js), or [] where there is none."""
    js = site / "site_libs" / "quarto-html" / "anchor.min.js"
    return [m.group(2) for m in ANCHOR_RULE.finditer(js.read_text(encoding="utf-8"))] if js.exists() else []


def icon_fonts_early(html: str, rules: list[str]) -> str:
    """`html` whose icon fonts load at the start (AnchorJS's baseline style, `rules`, in its head
    where it loads anchor.min.js); unchanged for a deck, a page with neither font, or done before."""
    end = html.find("</head>")
    if end < 0 or is_deck(html) or 'id="icon-fonts-early"' in html:
        return html
    fonts = []
    if "bootstrap-icons.css" in html[:end]:
        fonts.append("bootstrap-icons")
    anchors = bool(rules) and "anchor.min.js" in html[:end]
    if anchors:
        fonts += re.findall(r"font-family:\s*([\w-]+)", next((r for r in rules if r.startswith("@font-face")), ""))
    if not fonts:
        return html
    html = html[:end] + ICON_FONTS % json.dumps(fonts) + html[end:]
    first = FIRST_STYLESHEET.search(html, 0, end)
    if anchors and first:
        style = '<style class="anchorjs">\n' + "\n".join(rules) + "\n</style>\n"
        html = html[:first.start()] + style + html[first.start():]
    return html


# Quarto's body script has AnchorJS add a link icon to every heading (and float) of class "anchored"
# at DOMContentLoaded, after a link into the page has already scrolled to its place: each icon
# lengthens its line, and on a phone a heading that filled its line takes a second one, so the text
# a reader was taken to slides down a screen's worth of such lines.  The icons are written into the
# page here, exactly as AnchorJS makes them (its options as Quarto's script sets them: the icon
# read from the page, placed right, shown on hover); AnchorJS skips an element whose last child is
# its link.  A page whose script sets other options is left to AnchorJS.
ANCHORJS_CALL = re.compile(r'const icon = "([^"\\]*)";\s*const anchorJS = new window\.AnchorJS\(\);\s*'
                           r'anchorJS\.options = \{\s*placement: \'right\',\s*icon: icon\s*\};\s*anchorJS\.add\(\'\.anchored\'\);')
ANCHORED_OPEN = re.compile(r'<(h[1-6]|div)\b(?=[^>]*\bclass="(?:[^"]*\s)?anchored(?:\s[^"]*)?")[^>]*>')
ANCHORJS_ICON = "\ue9cb"   # the one glyph of AnchorJS's own icon font, which its script styles for


def anchorjs_link(element_id: str, icon: str) -> str:
    """The link AnchorJS 5 appends to an element (placement right, visible on hover, no <base>)."""
    font = "font: 1em / 1 anchorjs-icons; " if icon == ANCHORJS_ICON else ""
    return (f'<a class="anchorjs-link " aria-label="Anchor" data-anchorjs-icon="{icon}" href="#{element_id}" '
            f'style="{font}margin-left: 0.1875em; padding-right: 0.1875em; padding-left: 0.1875em;"></a>')


def _closing_tag(html: str, name: str, start: int) -> int:
    """Where the </name> that closes the element whose content starts at `start` begins, or -1."""
    depth = 1
    for m in re.compile(rf"<(/?){name}\b[^>]*>").finditer(html, start):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return m.start()
    return -1


def static_heading_anchors(html: str) -> str:
    """`html` with AnchorJS's link already in each element of class "anchored" (ANCHORJS_CALL); a
    page without that call, or done before, is left as it is."""
    call = ANCHORJS_CALL.search(html)
    if not call or 'class="anchorjs-link ' in html:
        return html
    icon = json.loads(f'"{call.group(1)}"')
    inserts = []
    for m in ANCHORED_OPEN.finditer(html, 0, call.start()):
        # AnchorJS's choice: the id, else data-anchor-id (Quarto's, on a heading whose section has the id)
        element_id = re.search(r'(?<![\w-])id="([^"]+)"', m.group(0)) or re.search(r'\bdata-anchor-id="([^"]+)"', m.group(0))
        end = _closing_tag(html, m.group(1), m.end())
        if element_id and end > 0:
            # the link must be the element's last child node: nothing, not even a newline, after it
            inserts.append((end, anchorjs_link(element_id.group(1), icon)))
    for at, link in sorted(inserts, reverse=True):
        html = html[:at] + link + html[at:]
    return html


# Quarto writes the source of every OJS cell into the page, highlighted, hidden when the cell does not
# echo it (echo: false), so that its runtime can point at the line of an error.  On a page of demos
# that is a large share of its HTML and its elements, all parsed and styled at load and never shown
# to a reader.  The runtime does without them ("sometimes the source code is not
# echoed": it then shows the error box alone).
HIDDEN_CELL_CODE = re.compile(r'<div class="code-copy-outer-scaffold"><div class="sourceCode cell-code hidden"[^>]*>'
                              r'<pre\b.*?</pre></div><button\b[^>]*class="code-copy-button"[^>]*>.*?</button></div>\n?', re.S)


def without_hidden_cell_code(html: str) -> str:
    """`html` without the hidden source of its echo: false cells."""
    return HIDDEN_CELL_CODE.sub("", html)


# A figure's <img> as Quarto writes it has no size, so the text below it moves when it arrives, and
# every figure is fetched and drawn at load although the first sits a screen or more down the page.
# Each SVG figure gets the width and height its file gives (the same size the browser would find, so
# nothing moves once it loads) and is fetched as it nears the screen (loading="lazy"; printing loads them all).
IMG_TAG = re.compile(r'<img\b[^>]*>')
SVG_ROOT = re.compile(r'<svg\b[^>]*>', re.S)
SVG_LENGTH = re.compile(r'^\s*([0-9.]+)\s*(px|pt)?\s*$')


def svg_size(svg: Path) -> tuple[int, int] | None:
    """The CSS pixel size of an SVG file's root (its width and height, else its viewBox), or None."""
    try:
        root = SVG_ROOT.search(svg.read_text(encoding="utf-8", errors="replace")[:4000])
    except OSError:
        return None
    if not root:
        return None
    attr = lambda name: (m.group(1) if (m := re.search(rf'\s{name}="([^"]*)"', root.group(0))) else None)
    size = []
    for name in ("width", "height"):
        m = SVG_LENGTH.match(attr(name) or "")
        if not m:
            break
        size.append(float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1))
    if len(size) < 2:
        box = (attr("viewBox") or "").replace(",", " ").split()
        if len(box) != 4:
            return None
        size = [float(box[2]), float(box[3])]
    return round(size[0]), round(size[1])


def sized_lazy_images(html: str, page: Path) -> str:
    """`html` whose SVG images (files beside the page) carry their size and load near the screen;
    a deck is left as it is (its slides are laid out by reveal.js)."""
    if is_deck(html):
        return html

    def fix(m: re.Match) -> str:
        tag = m.group(0)
        src = re.search(r'\ssrc="([^"#?]+\.svg)"', tag)
        if not src or re.search(r'\s(width|height|loading)=', tag) or "://" in src.group(1):
            return tag
        size = svg_size(page.parent / src.group(1))
        if not size:
            return tag
        return tag[:4] + f' width="{size[0]}" height="{size[1]}" loading="lazy" decoding="async"' + tag[4:]

    return IMG_TAG.sub(fix, html)


def quarto_share() -> Path | None:
    """Quarto's resources folder ($QUARTO_SHARE_PATH, else `quarto --paths`), or None."""
    share = os.environ.get("QUARTO_SHARE_PATH")
    if not share:
        try:
            share = subprocess.run(["quarto", "--paths"], capture_output=True, text=True, check=True).stdout.splitlines()[1]
        except (OSError, subprocess.CalledProcessError, IndexError):
            return None
    return Path(share)


def minified_runtime(site: Path) -> bool:
    """Quarto's own minified OJS runtime in place of the unminified one in site_libs/; False if not found."""
    folder = site / "site_libs" / "quarto-ojs"
    if not (folder / RUNTIME).exists() and (folder / RUNTIME_MIN).exists():
        return True
    share = quarto_share()
    src = share / "formats" / "html" / "ojs" / RUNTIME_MIN if share else None
    if not (src and src.exists() and folder.exists()):
        return False
    shutil.copy2(src, folder / RUNTIME_MIN)
    (folder / RUNTIME).unlink(missing_ok=True)
    return True


# Quarto ships the whole Bootstrap Icons font (176 KiB, some 2,000 icons) with every page that shows
# one icon (the GitHub mark of "View source"); the site's copy keeps only the icons its pages and
# Quarto's scripts name (bi-<name>), which is a few KiB.  Made from Quarto's own copy each time, so an
# icon that a later render adds is never missing.
ICON_NAME = re.compile(r"\bbi-([a-z0-9]+(?:-[a-z0-9]+)*)")
ICON_RULE = re.compile(r'\.bi-([a-z0-9-]+)::?before\s*\{\s*content:\s*"\\([0-9a-fA-F]+)"')
# Quarto's scripts also name an icon by itself and build its class as `bi-${name}` (the search
# results' "file-richtext"): a quoted word in a script that is an icon's name counts too
QUOTED_WORD = re.compile(r'["\'`]([a-z0-9]+(?:-[a-z0-9]+)*)["\'`]')


def icon_names(site: Path, css: Path, known: dict[str, list[str]]) -> tuple[set[str], dict[str, list[str]]]:
    """The icon names the site's pages, scripts and stylesheets (all but `css`, the icons' own) use,
    and each file's names by the hash of its content.  `known`: those of an earlier render, whose
    unchanged files (Quarto's scripts, most pages) are not read through again."""
    named, seen = set(), {}
    for f in [*site.rglob("*.html"), *(site / "site_libs").rglob("*.js"), *(f for f in site.rglob("*.css") if f != css)]:
        data = f.read_bytes()
        key = hashlib.sha1(data).hexdigest() + f.suffix
        if key in known:
            seen[key] = known[key]
        else:
            text = data.decode("utf-8", errors="replace")
            found = set(ICON_NAME.findall(text))
            if f.suffix == ".js":
                found.update(QUOTED_WORD.findall(text))
            seen[key] = sorted(found)
        named.update(seen[key])
    return named, seen


def subset_icon_font(site: Path, state: Path | None = None) -> int | None:
    """Cut the site's Bootstrap Icons font down to the icons named in its pages and scripts; the
    number of icons kept, or None where there is no font or no original to cut from.
    `state` (a JSON file in Quarto's scratch folder .quarto/): each file's icon names by its content
    and the last cut font, so that a render that names no new icon neither reads every file
    through nor cuts the font again (with fonttools, about half a second of a warm render)."""
    folder = site / "site_libs" / "bootstrap"
    font, css = folder / "bootstrap-icons.woff", folder / "bootstrap-icons.css"
    share = quarto_share()
    original = share / "formats" / "html" / "bootstrap" / "dist" / "bootstrap-icons.woff" if share else None
    if not (font.exists() and css.exists() and original and original.exists()):
        return None
    last = read_state(state)
    codepoints = {name: int(code, 16) for name, code in ICON_RULE.findall(css.read_text(encoding="utf-8"))}
    named, files = icon_names(site, css, last.get("files", {}))
    keep = sorted(codepoints[n] for n in named if n in codepoints)
    cut, entries = cut_font_cached(original, keep, last)
    if font.read_bytes() != cut:
        atomic_write({font: cut})
    if state:
        write_if_changed(state, json.dumps({"files": files, **entries}) + "\n")
    return len(keep)


def read_state(state: Path | None) -> dict:
    """A post-render step's state file in Quarto's scratch folder ({} where there is none)."""
    try:
        return json.loads(state.read_text(encoding="utf-8")) if state and state.exists() else {}
    except ValueError:
        return {}   # a state file cut short is only a cache: the work is done again


def cut_font_cached(original: Path, codepoints: list[int], last: dict) -> tuple[bytes, dict]:
    """`original` cut to `codepoints` (cut_font), or the cut kept in `last` (a step's state) when
    the font and the codepoints are the same; and the state entries that keep this cut."""
    key = hashlib.sha256(original.read_bytes() + repr(codepoints).encode()).hexdigest()
    cut = base64.b64decode(last["font"]) if last.get("font_key") == key else cut_font(original, codepoints)
    return cut, {"font_key": key, "font": base64.b64encode(cut).decode()}


def cut_font(original: Path, codepoints: list[int]) -> bytes:
    """`original` (a WOFF font) cut to `codepoints`, as WOFF bytes."""
    import io
    import logging

    from fontTools import subset   # fonttools (requirements.txt)

    logging.getLogger("fontTools").setLevel(logging.ERROR)   # Quarto's copy has a quirk it reports, harmlessly

    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    with subset.load_font(str(original), options) as ttf:
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codepoints)
        subsetter.subset(ttf)
        out = io.BytesIO()
        subset.save_font(ttf, out, options)
    return out.getvalue()


def post_render(site: Path, pages: list[Path] | None = None) -> list[str]:
    """Make the rendered pages load MathJax from the site and the OJS runtime on demand, paint
    before Quarto's scripts and carry no hidden OJS source, and cut the icon font; return the CDN
    references left.  `pages`: only these (the pages this render wrote), else every page."""
    left = []
    minified = minified_runtime(site)
    scratch = Path(os.environ.get("QUARTO_PROJECT_DIR") or ROOT) / ".quarto"   # Quarto's, kept between renders
    subset_icon_font(site, scratch / "icon-font.json" if scratch.is_dir() else None)
    anchors = anchor_rules(site)
    search_icon = search_icon_path(site)
    for page in sorted(pages if pages is not None else site.rglob("*.html")):
        if not page.exists():
            continue
        text = page.read_text(encoding="utf-8")
        depth = len(page.relative_to(site).parts) - 1
        prefix = "../" * depth or "./"
        new = ROOT_VENDOR_SRC.sub(lambda m: f"{m.group(1)}{m.group(2)}{prefix}vendor/", text)
        new = POLYFILL_TAG.sub("", new)
        new = ojs_on_demand(new, RUNTIME_MIN if minified else RUNTIME)
        new, source = ojs_contents_on_demand(new, page.stem)
        if source:
            for old in page.parent.glob(f"{page.stem}.ojs-source-*.txt"):
                if old.name != source[0]:
                    old.unlink()
            write_if_changed(page.parent / source[0], source[1])
        new = deferred_head_scripts(new)
        new = dom_ready_in_turns(new)
        new = blocks_laid_out_before_a_jump(new)
        new = search_on_first_use(new, search_icon)
        new = tippy_on_first_hover(new)
        new = icon_fonts_early(new, anchors)
        new = static_heading_anchors(new)
        new = without_hidden_cell_code(new)
        new = sized_lazy_images(new, page)
        if new != text:
            write_if_changed(page, new)   # through a temporary file: a page is never left half written
        left += [f"{page.relative_to(site)}: {url}" for url in CDN_PATTERN.findall(new)]
    return left


def rendered_pages(site: Path) -> list[Path] | None:
    """The HTML pages this render wrote (Quarto's QUARTO_PROJECT_OUTPUT_FILES, relative to the
    project), or None (every page of `site`) when run by hand or after a render of the whole project."""
    listed = os.environ.get("QUARTO_PROJECT_OUTPUT_FILES")
    if listed is None or os.environ.get("QUARTO_PROJECT_RENDER_ALL"):
        return None
    project = Path(os.environ.get("QUARTO_PROJECT_DIR") or ROOT)
    return [project / f for f in listed.splitlines() if f.endswith(".html")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--post-render", action="store_true", help="fix up the rendered site")
    ap.add_argument("--check", action="store_true", help="only list CDN references in the site")
    ap.add_argument("site", nargs="?", help="the output directory (default: $QUARTO_PROJECT_OUTPUT_DIR or _site)")
    args = ap.parse_args(argv)
    if not (args.post_render or args.check):
        vendor()
        return 0
    site = Path(args.site or os.environ.get("QUARTO_PROJECT_OUTPUT_DIR") or ROOT / "_site")
    if not site.is_absolute():
        site = ROOT / site
    if args.check:
        left = [f"{p.relative_to(site)}: {u}" for p in sorted(site.rglob("*.html"))
                for u in CDN_PATTERN.findall(p.read_text(encoding="utf-8"))]
    else:
        left = post_render(site, rendered_pages(site))
    for line in left:
        print(f"vendor_js: CDN reference left in {line}", file=sys.stderr)
    return 1 if (left and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
