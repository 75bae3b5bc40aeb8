"""The reading path of the briefing: glossary terms, citations, Further Reading.

A student reads the briefing after the lab and follows its links.  These tests check, from the
sources (pandoc parses the .qmd and the .bib, as Quarto does), that

- every glossary entry has a one-sentence definition and a "See" link to a briefing section that
  uses the term, and the briefing's first use of the term links to the entry (links both ways);
- every term the briefing leans on (issue 12's list) has an entry;
- every citation on the page has an entry in references.bib with a DOI, an arXiv id or a URL, every
  entry is cited, and no author-year is typed by hand;
- every "Further Reading" pointer leads to the section, which cites every entry.

With `quarto` on PATH, one render (into a temporary directory) checks the same links in the HTML.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from scripts import paths
from tests.support import pandoc_ast, section_text, this_module

M3 = this_module(__file__)    # the module these tests belong to (their folder's)

ROOT = paths.ROOT
GLOSSARY = M3.dir / "glossary.qmd"
MODULE_PAGE = M3.dir / "index.qmd"
BIB = ROOT / "references.bib"
SLIDES = M3.dir / "slides.qmd"
PAGES = [ROOT / "index.qmd", MODULE_PAGE, M3.dir / "lab.qmd", GLOSSARY, SLIDES]
BRIEFING_LINK = re.compile(r"\]\(index\.qmd#([\w-]+)\)")      # from the module's glossary to its briefing
GLOSSARY_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:\.\./\.\./|/)?glossary\.qmd#([\w-]+)\)")
CROSSREF_PREFIXES = ("eq-", "fig-", "tbl-", "sec-")

# Terms the briefing defines or leans on (issue 12), each with the entry that must define it.
REQUIRED_TERMS = {
    "Jacobian": "jacobian", "one-step Jacobian": "jacobian", "saturated unit": "saturated-unit",
    "pre-activation": "pre-activation", "candidate cell state": "candidate-cell-state",
    "input gate": "input-gate", "output gate": "output-gate", "update gate": "update-gate",
    "reset gate": "reset-gate", "constant error carousel": "constant-error-carousel",
    "direct path": "direct-path", "weight sharing": "weight-sharing", "unrolling": "unrolling",
    "language model": "language-model", "logits": "logits", "softmax": "softmax",
    "cross-entropy": "cross-entropy", "nats": "nat", "bits per character": "bits-per-character",
    "n-gram": "n-gram", "add-k smoothing": "add-k-smoothing", "embedding": "embedding",
    "maximum likelihood": "maximum-likelihood",
}


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def front_matter(path: Path) -> dict:
    m = re.match(r"---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), flags=re.S)
    return yaml.safe_load(m.group(1)) if m else {}


def glossary_entries() -> dict[str, dict]:
    """id -> {title, forms, body (markdown source of the entry)} from the glossary's level-2 headings."""
    text = GLOSSARY.read_text(encoding="utf-8")
    entries = {}
    for m in re.finditer(r"(?ms)^## (.+?) \{#([\w-]+)([^}]*)\}\n(.*?)(?=^## |\Z)", text):
        title, anchor, attrs, body = m.groups()
        forms = re.search(r'forms="([^"]*)"', attrs)
        entries[anchor] = {"title": title, "body": body.strip(),
                           "forms": [f.strip() for f in forms.group(1).split(";")] if forms
                           else default_forms(title)}
    return entries


def default_forms(title: str) -> list[str]:
    """'Long short-term memory (LSTM)' -> ['Long short-term memory', 'LSTM']."""
    m = re.match(r"(.*?)\s*\((.*)\)\s*(.*)", title)
    if not m:
        return [title]
    return [f"{m.group(1)} {m.group(3)}".strip(), m.group(2)]


def form_pattern(form: str) -> re.Pattern:
    """A use of the term: words joined by spaces or hyphens, optional plural; abbreviations match case."""
    words = r"[\s-]+".join(re.escape(w) for w in re.split(r"[\s-]+", form))
    flags = 0 if form.isupper() else re.I
    return re.compile(r"(?<![\w-])" + words + r"(?:s|es)?(?!\w)", flags)


def prose(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The briefing's running text as a reader meets it, same length as the source (blanked, not cut),
    and the spans of its glossary links: (start, end, entry id).  Blanked: front matter, code, math,
    shortcodes, headings, cross-references, HTML comments, link targets and the text of links to
    anywhere but the glossary (navigation is not a use of a term)."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    for pat in [r"(?s)\A---\n.*?\n---\n", r"(?ms)^```.*?^```", r"(?s)<!--.*?-->", r"(?s)\$\$.*?\$\$", r"\$[^$\n]+\$",
                r"`[^`\n]+`", r"\{\{<.*?>\}\}", r"(?m)^#{1,6} .*$", r"@(?:eq|fig|tbl|sec)-[\w-]+",
                r"\{[#.][^}\n]*\}", r'fig-alt="[^"]*"']:
        text = re.sub(pat, blank, text)
    links = [(m.start(), m.end(), m.group(2)) for m in GLOSSARY_LINK.finditer(text)]
    for m in GLOSSARY_LINK.finditer(text):  # keep the link text, blank the target
        target_start = m.start() + 2 + len(m.group(1))
        text = text[:target_start] + " " * (m.end() - target_start) + text[m.end():]
    glossary_spans = [(s, e) for s, e, _ in links]

    def blank_other_link(m: re.Match) -> str:
        if any(s <= m.start() < e for s, e in glossary_spans):
            return m.group(0)
        if m.group(1):  # a figure: its caption is prose, its target is not
            return "  " + m.group(2) + re.sub(r"[^\n]", " ", m.group(0)[2 + len(m.group(2)):])
        return blank(m)

    text = re.sub(r"(!?)\[((?:[^\[\]]|\[[^\]]*\](?:\([^)\s]*\))?)*)\]\([^)\s]*\)", blank_other_link, text)
    return text, links


def uses(text: str, anchor: str, entries: dict) -> list[int]:
    """Positions where the page uses the entry's term, not counting a longer term that contains it
    ('output gate' is a use of the output gate, not of 'gate')."""
    longer = [form_pattern(f) for a, e in entries.items() if a != anchor for f in e["forms"]
              if any(form_pattern(mine).search(f) and len(f) > len(mine) for mine in entries[anchor]["forms"])]
    covered = [(m.start(), m.end()) for p in longer for m in p.finditer(text)]
    hits = sorted(m.start() for f in entries[anchor]["forms"] for m in form_pattern(f).finditer(text))
    return [h for h in hits if not any(s <= h < e for s, e in covered)]


def ast_nodes(text: str):
    """Every element (dict node) of the pandoc AST of a markdown text."""
    stack = [pandoc_ast(text)["blocks"]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def heading_ids(page_text: str) -> set[str]:
    return {n["c"][1][0] for n in ast_nodes(page_text) if n.get("t") == "Header"}


def citations(page_text: str) -> list[str]:
    """Citation keys of the page, as pandoc reads them (cross-references are not citations)."""
    keys = [c["citationId"] for n in ast_nodes(page_text) if n.get("t") == "Cite" for c in n["c"][0]]
    return [k for k in keys if not k.startswith(CROSSREF_PREFIXES)]


def bib_entries() -> dict[str, dict]:
    import pypandoc

    return {e["id"]: e for e in json.loads(pypandoc.convert_file(str(BIB), "csljson", format="bibtex"))}


@pytest.fixture(scope="module")
def entries():
    return glossary_entries()


NAVIGATION = {"_agenda.qmd", "_exercise-table.qmd"}  # lists of section and exercise names, not prose


def with_partials(path: Path) -> str:
    """The page with its hand-written partials expanded, as Quarto does, by the project's one include
    expansion (tests/js/qmd-files.mjs).  Generated partials (from the data) and the navigation tables are
    left out: they are not where the briefing introduces terms."""
    leave = ["modules/*/_generated/*"] + [f"**/{name}" for name in NAVIGATION]
    cmd = ["node", str(ROOT / "tests" / "js" / "qmd-files.mjs"), "expand", str(path), "--no-meta", "--strict"]
    res = subprocess.run(cmd + [arg for glob in leave for arg in ("--leave", glob)], capture_output=True,
                         text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return res.stdout


@pytest.fixture(scope="module")
def page():
    return with_partials(MODULE_PAGE)


# --------------------------------------------------------------------------------------------
# Glossary
# --------------------------------------------------------------------------------------------
def test_parsers_see_what_a_reader_sees():
    text, links = prose("---\ntitle: x\n---\n## An RNN heading {#h}\n$h_t$ is the [RNN](#s2) "
                        "[hidden state](../../glossary.qmd#hidden-state) of an `RNN` (@eq-rnn-step).\n"
                        "![A cell, [unrolled](../../glossary.qmd#unrolling).](fig.svg){#fig-x}\n")
    assert "RNN" not in text and "hidden state" in text and "glossary" not in text and "fig" not in text
    assert "A cell, [unrolled]" in text
    assert [text[s:e].strip() for s, e, _ in links] == ["[hidden state]", "[unrolled]"]
    assert form_pattern("n-gram").search("the n-grams") and not form_pattern("n-gram").search("a 5-gram")
    assert form_pattern("maximum likelihood").search("maximum-likelihood training")
    assert not form_pattern("language model").search("language modeling")
    assert not form_pattern("RNN").search("a rnn") and form_pattern("RNN").search("RNNs")
    fake = {"gate": {"forms": ["gate"]}, "output-gate": {"forms": ["output gate"]}}
    assert uses("the output gate and a gate", "gate", fake) == [len("the output gate and a ")]
    assert default_forms("Long short-term memory (LSTM)") == ["Long short-term memory", "LSTM"]
    assert default_forms("Nucleus (top-p) sampling") == ["Nucleus sampling", "top-p"]


def test_every_required_term_has_an_entry_that_names_it(entries):
    for term, anchor in REQUIRED_TERMS.items():
        assert anchor in entries, f"the glossary has no entry #{anchor} for {term!r}"
        e = entries[anchor]
        named = e["title"] + " " + " ".join(e["forms"]) + " " + e["body"]
        assert form_pattern(term.split()[-1]).search(named), f"#{anchor} does not mention {term!r}"


def test_each_entry_is_one_sentence_and_a_see_link(entries):
    for anchor, e in entries.items():
        definition, _, see = e["body"].partition("See [")
        assert see, f"#{anchor} has no 'See [section ...](...)' link to the briefing"
        assert BRIEFING_LINK.search("](" + see.split("](", 1)[1]), f"#{anchor}: its See link is not to the briefing"
        if anchor in REQUIRED_TERMS.values():  # the entries written for issue 12: one sentence each
            flat = re.sub(r"\$[^$]*\$", "MATH", definition)
            flat = re.sub(r"\b(?:e\.g|i\.e|et al)\.", "", flat)
            sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", flat.strip()) if s]
            assert len(sentences) == 1, f"#{anchor} is {len(sentences)} sentences: {definition!r}"


def test_see_links_land_on_a_section_that_uses_the_term(entries, page):
    ids = heading_ids(page)
    for anchor, e in entries.items():
        targets = BRIEFING_LINK.findall(e["body"])
        for t in targets:
            assert t in ids, f"glossary #{anchor} links to #{t}, which is not a heading of the briefing"
        if anchor == "gate" or not targets:
            continue
        sections = [section_text(page, t) or "" for t in targets if t != "further-reading"]
        assert any(form_pattern(f).search(s) for f in e["forms"] for s in sections), \
            f"glossary #{anchor} points at {targets}, where the briefing never uses {e['forms']}"


def test_first_use_of_every_term_links_to_its_entry(entries, page):
    text, links = prose(page)
    unused, unlinked = [], []
    for anchor in entries:
        hits = uses(text, anchor, entries)
        if not hits:
            unused.append(anchor)
            continue
        first = hits[0]
        if [a for s, e, a in links if s <= first < e] != [anchor]:
            unlinked.append(f"#{anchor}: {page[max(0, first - 50):first + 30]!r}")
    assert not unlinked, "first uses in the briefing that do not link to their glossary entry:\n" + "\n".join(unlinked)
    assert not unused, f"glossary entries the briefing never uses: {unused}"


def test_glossary_links_resolve_both_ways(entries):
    for p in PAGES:
        for _, anchor in GLOSSARY_LINK.findall(with_partials(p)):
            assert anchor in entries, f"{p.relative_to(ROOT)} links to glossary #{anchor}, which does not exist"
    linked = {a for _, a in GLOSSARY_LINK.findall(with_partials(MODULE_PAGE))}
    assert set(entries) <= linked, f"entries the briefing never links to: {sorted(set(entries) - linked)}"


# --------------------------------------------------------------------------------------------
# Citations and Further Reading
# --------------------------------------------------------------------------------------------
def test_page_reads_the_bibliography():
    bib = front_matter(MODULE_PAGE).get("bibliography") or yaml.safe_load(
        (ROOT / "_quarto.yml").read_text(encoding="utf-8")).get("bibliography")
    assert bib, "the briefing cites works but names no bibliography"
    base = MODULE_PAGE.parent if front_matter(MODULE_PAGE).get("bibliography") else ROOT
    assert (base / bib).resolve() == BIB.resolve()


def test_every_citation_resolves_and_every_entry_is_cited(page):
    bib = bib_entries()
    cited = citations(page)
    assert cited, "the briefing cites nothing"
    assert set(cited) <= set(bib), f"cited but not in references.bib: {sorted(set(cited) - set(bib))}"
    assert set(bib) <= set(cited), f"in references.bib but never cited: {sorted(set(bib) - set(cited))}"
    for key, e in bib.items():
        assert e.get("DOI") or re.match(r"https://arxiv\.org/abs/\d{4}\.\d{4,5}$", e.get("URL", "")) \
            or e.get("URL"), f"{key}: no DOI, arXiv id or URL"
        assert e.get("author") and e.get("issued") and e.get("title"), f"{key}: incomplete reference"


def test_no_author_year_typed_by_hand():
    """A work the prose names is cited through the .bib, so its full reference is one click away."""
    for p in [MODULE_PAGE, GLOSSARY]:
        text, _ = prose(with_partials(p))
        text = re.sub(r"\[[^\]]*\]", " ", text) if p == GLOSSARY else text  # glossary: linked names
        m = re.search(r"\b[A-Z][a-zü]+(?: et al\.|,? (?:and )?[A-Z][a-zü]+)*(?: \(|, )(?:19|20)\d\d\b", text)
        assert not m, f"{p.name}: typed author-year {m.group(0)!r}; cite it with [@key]"


def test_further_reading_section_cites_every_entry_once(page):
    section = section_text(page, "further-reading")
    assert section, "the briefing has no section {#further-reading}"
    assert re.search(r"(?m)^::: *\{#refs\}", section), "the references list (::: {#refs}) is not in Further Reading"
    items = re.findall(r"(?m)^- (.*)$", section)
    keys = [k for item in items for k in citations(item)]
    assert sorted(keys) == sorted(bib_entries()), "Further Reading: one line per work in references.bib"
    for item in items:
        assert len(re.sub(r"@\w+", "", item)) > 40, f"say what to read it for: {item!r}"


def test_no_further_reading_pointer_without_its_section(page):
    ids = heading_ids(page)
    for p in PAGES:
        text = with_partials(p)
        body = re.sub(r"(?m)^#{1,6} .*$", "", text)
        for m in re.finditer(r"Further Reading", body):
            link = re.match(r"\]\(([^)]*)\)", body[m.end():])
            assert link, f"{p.relative_to(ROOT)}: 'Further Reading' without a link to the section"
            target = link.group(1)
            assert target.endswith("#further-reading"), f"{p.relative_to(ROOT)}: 'Further Reading' links to {target}"
        for target in re.findall(r"\]\(([^)]*)#further-reading\)", text):
            page = MODULE_PAGE if target == "" else (ROOT / target.lstrip("/") if target.startswith("/")
                                                     else p.parent / target)
            assert page.resolve() == MODULE_PAGE.resolve(), f"{p.relative_to(ROOT)}: #further-reading of {target}"
    assert "further-reading" in ids


# --------------------------------------------------------------------------------------------
# The rendered site (needs Quarto)
# --------------------------------------------------------------------------------------------
class Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
            if a["id"].startswith("ref-"):
                self.refs.append(a["id"][4:])
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])


@pytest.fixture(scope="module")
def rendered():
    """The site as the shared test render builds it (tests/js/site-render.mjs: once per state of the
    checkout, reused by every suite; it fails on any Quarto warning, citeproc's included)."""
    if shutil.which("quarto") is None:
        pytest.skip("the `quarto` command is needed to render the site (not on PATH)")
    if shutil.which("node") is None:                # the suite needs node anyway: only quarto may be absent
        pytest.fail("the `node` command is needed to render the site (tests/js/site-render.mjs): it is not on PATH",
                    pytrace=False)
    res = subprocess.run(["node", str(ROOT / "tests" / "js" / "site-render.mjs")], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    site = Path(json.loads(res.stdout.strip().splitlines()[-1])["site"])
    out = {}
    for name in [f"modules/{M3.id}/index.html", f"modules/{M3.id}/glossary.html"]:
        parser = Anchors()
        html = (site / name).read_text(encoding="utf-8")
        parser.feed(html)
        out[name] = (parser, html)
    return out


@pytest.mark.render
def test_rendered_links_resolve_both_ways(rendered):
    module, module_html = rendered[f"modules/{M3.id}/index.html"]
    glossary, _ = rendered[f"modules/{M3.id}/glossary.html"]
    to_glossary = [h.split("#", 1)[1] for h in module.hrefs if re.match(rf"(?:\.\./\.\./modules/{M3.id}/)?glossary\.html#", h)]
    assert to_glossary and all(a in glossary.ids for a in to_glossary), \
        sorted(a for a in to_glossary if a not in glossary.ids)
    to_module = [h.split("#", 1)[1] for h in glossary.hrefs if re.match(rf"(?:\.\./\.\./modules/{M3.id}/)?index\.html#", h)]
    assert to_module and all(a in module.ids for a in to_module), sorted(a for a in to_module if a not in module.ids)
    assert set(glossary_entries()) <= set(to_glossary)


@pytest.mark.render
def test_rendered_citations_resolve(rendered):
    module, html = rendered[f"modules/{M3.id}/index.html"]
    assert "?@" not in html and "???" not in html
    assert sorted(module.refs) == sorted(bib_entries()), "one reference per .bib entry"
    for key in bib_entries():
        assert f"#ref-{key}" in module.hrefs, f"no in-text citation links to {key}"
    refs = html[html.index('id="refs"'):]
    for e in bib_entries().values():
        if e.get("DOI"):
            assert f"https://doi.org/{e['DOI']}" in refs, e["id"]
    assert "further-reading" in module.ids and html.index('id="further-reading"') < html.index('id="refs"')


# --------------------------------------------------------------------------------------------
# What the pages say about the lab agrees with the lab
# --------------------------------------------------------------------------------------------
LAB_SOURCE = M3.lab_source


def test_exercise_and_part_counts_match_the_lab():
    lab = LAB_SOURCE.read_text(encoding="utf-8")
    parts = re.findall(r"(?m)^# # Part ([A-Z]) ·", lab)
    exercises = set(re.findall(r'tags=\[[^\]]*"exercise-(\d+)[a-z]?"', lab))
    table = (M3.dir / "_exercise-table.qmd").read_text(encoding="utf-8")
    assert re.findall(r"\*\*Part ([A-Z]) ·", table) == parts
    assert len(set(re.findall(r"Exercise (\d+) ·", table))) == len(exercises)
    claims = [(p, m) for p in [MODULE_PAGE, M3.dir / "lab.qmd"]
              for m in re.finditer(r"(\d+) exercises in (\d+) parts", p.read_text(encoding="utf-8"))]
    assert claims, "the pages no longer say how many exercises and parts the lab has"
    for p, m in claims:
        assert (int(m.group(1)), int(m.group(2))) == (len(exercises), len(parts)), \
            f"{p.relative_to(ROOT)}: {m.group(0)!r}, but the lab has {len(exercises)} exercises in {len(parts)} parts"


def test_pages_mention_keys_only_if_the_lab_uses_them():
    lab = LAB_SOURCE.read_text(encoding="utf-8")
    uses_secrets = re.search(r"google\.colab import userdata|userdata\.get\(", lab)
    for p in PAGES:
        text = with_partials(p)
        if not uses_secrets:
            assert "Colab Secrets" not in text and "your keys" not in text, \
                f"{p.relative_to(ROOT)} tells students about their keys, but the lab uses none"


def test_lab_runtime_is_the_measured_one():
    """The pages say how long the lab's compute took only through the data (the build's own timing,
    with where it ran), never as a typed estimate."""
    for p in [MODULE_PAGE, M3.dir / "lab.qmd"]:
        text = with_partials(p)
        assert "{{< meta data.provenance.lab_compute >}}" in text, f"{p.relative_to(ROOT)}: no measured lab runtime"
        typed = re.search(r"(?:about|~)?\s*\d+\s*(?:minutes|min)\b[^.|]*\b(?:compute|T4|GPU|CPU)", text)
        assert not typed, f"{p.relative_to(ROOT)} types a runtime: {typed.group(0)!r}"


# Spans in code type that are values or text, not names in the lab
NOT_NAMES = {"# TODO", "nan"}
FENCED = re.compile(r"(?ms)^(```|~~~).*?^\1[ \t]*$")
HTML_COMMENT = re.compile(r"(?s)<!--.*?-->")
NAME_SPAN = re.compile(r"^(?P<dotted>[A-Za-z_]\w*(?:\.\w+)*)(?:\((?P<args>[^()]*)\))?$")


def lab_names() -> tuple[set[str], dict[str, list[str]], set[str]]:
    """What the student notebook defines (its cells and folded solutions): every assigned, defined or parameter
    name, each function's parameters, and the attributes set on self."""
    import ast

    from scripts.measure.lab_source import student_notebook

    names, params, attributes = set(), {}, set()
    for cell in student_notebook(M3).cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
                if isinstance(node, ast.FunctionDef):
                    params[node.name] = [a.arg for a in node.args.args]
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                attributes.add(node.attr)
    return names, params, attributes


def code_spans(path: Path) -> set[str]:
    """The spans a reader sees in code type: inline `...` in the prose (not in code blocks or comments)."""
    text = HTML_COMMENT.sub("", FENCED.sub("", with_partials(path)))
    return set(re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text))


def test_every_name_shown_in_code_type_exists_in_the_lab():
    """Issue 17: a name a page, the deck or the glossary shows in code type is one the lab defines (with those
    parameters, when a signature is shown), or PyTorch's own; no page points a student at a function the lab
    does not have (as `grad_norm_by_distance` did)."""
    import torch

    names, params, attributes = lab_names()
    libraries = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional}
    missing = []
    for page in PAGES:
        for span in sorted(code_spans(page) - NOT_NAMES):
            m = NAME_SPAN.match(span)
            if not m or re.search(r"\.(?:json|ipynb|py|qmd|svg)$", span):
                continue                                           # a file, a path or a snippet, not a name
            head, *rest = m["dotted"].split(".")
            if head in libraries:
                obj = libraries[head]
                for attr in rest:
                    obj = getattr(obj, attr, None)
                ok = obj is not None
            elif head == "self":
                ok = rest[:1] and rest[0] in attributes
            else:
                ok = head in names
                if ok and m["args"] is not None and head in params:
                    shown = [a.strip() for a in m["args"].split(",") if a.strip()]
                    ok = shown == params[head][:len(shown)]
            if not ok:
                missing.append(f"{page.relative_to(ROOT)}: `{span}`")
    assert not missing, "names in code type that the lab does not define: " + "; ".join(missing)


def test_the_name_test_sees_a_missing_name(tmp_path, monkeypatch):
    names, params, _ = lab_names()
    assert {"grad_by_distance", "norm_by_distance", "lstm_grad_by_distance", "use_solution", "spectral_W"} <= names
    assert "grad_norm_by_distance" not in names
    assert params["clip_gradients"] == ["params", "kappa"]
    page = tmp_path / "page.qmd"
    page.write_text("The provided `grad_norm_by_distance` and `clip_gradients(params, kappa)`.\n"
                    "```python\nnot_a_name_here()\n```\n<!-- `nor_this` -->\n", encoding="utf-8")
    assert code_spans(page) == {"grad_norm_by_distance", "clip_gradients(params, kappa)"}


# --------------------------------------------------------------------------------------------
# Counts the deck's words make (issue 17): each one is counted from what it counts
# --------------------------------------------------------------------------------------------
NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def test_the_agenda_note_counts_the_sections_and_the_room_activities():
    deck = SLIDES.read_text(encoding="utf-8")
    agenda = (ROOT / "modules" / "03-sequence-models" / "_agenda.qmd").read_text(encoding="utf-8")
    rows = re.findall(r"(?m)^\| [\d–]+ \| \[\d+\. [^|]*\| ([^|]*) \|$", agenda)
    activities = [r for r in rows if r.strip() not in ("—", "")]
    m = re.search(r"Say in one sentence: (\w+) sections, (\w+) of them end with something for the room to do "
                  r"\(([^)]*)\)", deck)
    assert m, "the agenda slide's note no longer says how many sections end with something for the room"
    assert NUMBER_WORDS[m.group(1)] == len(rows) == len(re.findall(r'(?m)^## \d+\. .*minutes="', deck))
    assert NUMBER_WORDS[m.group(2)] == len(activities)
    listed = re.findall(r"sections? (\d+(?: and \d+)?)", m.group(3))
    assert sum(len(x.split(" and ")) for x in listed) == len(activities), m.group(3)


def test_the_words_between_subject_and_verb_are_counted():
    page = MODULE_PAGE.read_text(encoding="utf-8")
    sentence = re.search(r'"The \*keys\* (.*?) \*are\* missing"', page).group(1)
    between = len(sentence.split())
    earlier = re.search(r"agrees with \*keys\*, (\w+) words earlier", page)
    assert earlier and NUMBER_WORDS[earlier.group(1)] == between + 1       # keys is 7 positions before are
    note = re.search(r"(\w+) words between subject and verb", SLIDES.read_text(encoding="utf-8"))
    assert note and NUMBER_WORDS[note.group(1)] == between


def test_a_slide_that_counts_its_bullets_has_that_many():
    deck = SLIDES.read_text(encoding="utf-8")
    for m in re.finditer(r"(?m)^## (\w+) ([^{\n]*?)\s*(?:\{[^}]*\})?\n(.*?)(?=^## |\Z)", deck, flags=re.S):
        count = NUMBER_WORDS.get(m.group(1).lower())
        if count is None or count < 2:
            continue
        body = m.group(3).split("::: {.notes}")[0]
        bullets = re.findall(r"(?m)^- ", body)
        assert len(bullets) == count, f"slide '{m.group(1)} {m.group(2)}' has {len(bullets)} bullets"
    page = MODULE_PAGE.read_text(encoding="utf-8")
    after = page.split("Three honest qualifications.", 1)[1].split("\n\n", 2)[1]
    assert len(re.findall(r"(?m)^- ", after)) == 3


def test_the_compute_slide_does_not_speak_of_scores_it_does_not_show():
    deck = SLIDES.read_text(encoding="utf-8")
    slide = deck.split("## Not at equal compute", 1)[1].split("::: {.notes}", 1)[0]
    assert "perplexity" not in slide.lower() and "The table can show" not in slide
    assert "the lab's results table can show whether each model beats the counts" in slide


def test_the_lab_page_lists_every_section_with_an_after_the_lab_box():
    sections, current = set(), None
    for line in MODULE_PAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## (\d+)\. ", line)
        current = int(m.group(1)) if m else current
        if line.startswith("## After the Lab:"):
            sections.add(current)
    listed = re.search(r"\*After the Lab\* in the \[briefing\]\([^)]*\)\s+\(sections ([\d, and]+)\)",
                       (M3.dir / "lab.qmd").read_text(encoding="utf-8"))
    assert listed, "the Lab page no longer says where the After-the-Lab boxes are"
    assert {int(n) for n in re.findall(r"\d+", listed.group(1))} == sections == {4, 5, 6, 7}


def test_the_home_page_names_where_each_kind_of_number_comes_from():
    home = (ROOT / "index.qmd").read_text(encoding="utf-8")
    about = home.split("## About the numbers on this site", 1)[1]
    assert "`data/<module>/results.json`" in about and "`data/<module>/worked_examples.json`" in about


def test_glossary_says_no_more_than_the_briefing():
    """Issue 17: saturation *can* shrink the gradient with ||W|| > 1; the bound needs ||diag(1 - h^2)|| <= 1 as well
    as submultiplicativity; only the direct path of the cell state sees forget gates alone."""
    entries = glossary_entries()
    assert "can shrink the gradient even when" in " ".join(entries["vanishing-gradient"]["body"].split())
    assert "\\mathrm{diag}(1 - h_j^2) \\rVert \\le 1" in " ".join(entries["spectral-norm"]["body"].split())
    assert "along its direct path the gradient is multiplied only by forget gates" in " ".join(entries["cell-state"]["body"].split())
