"""The rules every page of the course obeys, checked on the home page and on each module found under
modules/ (Module 3 and any module `make module` writes alike): the Quarto project's set-up (the navbar
lists every module's pages, offline themes), measured values only through {{< meta data.KEY >}} and never
typed, no code executed by a page, includes alone on their line, the Colab link made by its shortcode
from the repository being published.  What one module's pages say is that module's own tests'
(modules/<id>/tests/test_pages.py)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scripts import course
from scripts.paths import ROOT

MODULES = course.modules()
HOME = ROOT / "index.qmd"
# an include shortcode anywhere in a line, and one that is the whole line
ANY_INCLUDE = re.compile(r"(?<!\{)\{\{<\s*include\s+(\S+?)\s*>\}\}")
WHOLE_LINE_INCLUDE = re.compile(r"[ \t]*\{\{<\s*include\s+\S+?\s*>\}\}[ \t]*")


def pages(module: course.Module) -> list[Path]:
    """A module's pages (its briefing, lab page, glossary and deck: the .qmd files that are not partials)."""
    return sorted(p for p in module.dir.glob("*.qmd") if not p.name.startswith("_"))


def partials(module: course.Module) -> list[Path]:
    return sorted(module.dir.glob("_*.qmd"))


def by_id(m: course.Module) -> str:
    return m.id


def test_quarto_config():
    cfg = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))
    assert cfg["project"]["type"] == "website"
    assert "-m scripts.pages.site_data --check" in str(cfg["project"]["pre-render"])
    nav = cfg["website"]["navbar"]["left"]
    assert [item["text"] for item in nav] == ["Home"] + [f"Module {m.number}" for m in MODULES]
    hrefs = [item["href"] for item in nav if "href" in item] + [sub["href"] for item in nav for sub in item.get("menu", [])]
    for m in MODULES:                  # each module's menu: its briefing, deck, lab and glossary
        assert {f"{m.page_dir}/{page}.qmd" for page in ("index", "slides", "lab", "glossary")} <= set(hrefs)
    for href in hrefs:
        assert (ROOT / href).exists(), href
    theme = cfg["format"]["html"]["theme"]
    assert {"light", "dark"} <= set(theme), "light and dark themes"
    assert "search" in cfg["website"]
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", cfg["course"]["github"]), "course.github is OWNER/REPO"


def test_themes_load_no_web_fonts():
    """cosmo and darkly @import Google Fonts unless $web-font-path is false: the site must work offline."""
    theme = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))["format"]["html"]["theme"]
    for mode in ("light", "dark"):
        layers = theme[mode] if isinstance(theme[mode], list) else [theme[mode]]
        scss = [ROOT / layer for layer in layers if str(layer).endswith(".scss")]
        assert scss, f"the {mode} theme has no .scss layer turning off web fonts"
        text = "\n".join(path.read_text(encoding="utf-8") for path in scss)
        assert "/*-- scss:defaults --*/" in text and re.search(r"\$web-font-path:\s*false;", text)


def test_rendering_needs_no_torch():
    """The render's pre-render step formats and checks every module's page data; it never imports torch (or
    runs a lab)."""
    code = ("import sys, runpy; sys.argv = ['site_data', '--check']\n"
            "try:\n    runpy.run_module('scripts.pages.site_data', run_name='__main__')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "assert 'torch' not in sys.modules, 'site_data imported torch'\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.parametrize("module", MODULES, ids=by_id)
def test_formatting_lives_in_one_place(module):
    """Pages hold no format specifiers or arithmetic on data; the module's page_data.py holds all of it."""
    for page in [HOME, *pages(module), *partials(module)]:
        raw = page.read_text(encoding="utf-8")
        assert not re.search(r"\{\{<\s*(?:var|env)\s", raw), \
            f"{page.relative_to(ROOT)}: measured values come from the module's meta only"
        for key in re.findall(r"\{\{<\s*meta\s+([\w.\-]+)", raw):
            assert key.startswith("data."), f"{page.relative_to(ROOT)}: {{{{< meta {key} >}}}} is not one of the module's values"
        assert "```{python" not in raw, f"{page.relative_to(ROOT)}: no page executes code"


@pytest.mark.parametrize("module", MODULES, ids=by_id)
def test_includes_are_alone_on_their_line(module):
    """Quarto expands an include only when it is the whole line (quarto-cli #1767); one inside a
    sentence is printed as it is ("Shortcode 'include' not found")."""
    for page in [HOME, *pages(module), *partials(module)]:
        raw = page.read_text(encoding="utf-8")
        inline = [line.strip() for line in raw.splitlines()
                  if ANY_INCLUDE.search(line) and not WHOLE_LINE_INCLUDE.fullmatch(line)]
        assert not inline, f"{page.relative_to(ROOT)}: include not alone on its line: {inline}"


def measured_display_values(values) -> set[str]:
    """The display strings of a module's page values that carry a measurement's digits (a decimal with three
    significant digits or more, or a power of ten): no page of the module may type one of them.  Settings
    (k = 0.01, d_h = 256, 1,000 steps) do not look like that and may be written in prose and code."""
    found = set()
    stack = [values]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, str) and re.fullmatch(r"[\d.,%×⁰¹²³⁴⁵⁶⁷⁸⁹⁻ ]+", v):
            significant = re.sub(r"^[0.,]+", "", re.sub(r"[^\d.,].*$", "", v)).replace(".", "").replace(",", "")
            if "×" in v or ("." in v and len(significant) >= 3):
                found.add(v)
    return found


def test_the_guard_sees_a_measurement_and_lets_a_setting_pass():
    values = {"a": "5.01", "b": {"c": "1.2 × 10⁻⁶", "d": "0.01"}, "e": "256", "f": "1,000", "g": "Lab 3"}
    assert measured_display_values(values) == {"5.01", "1.2 × 10⁻⁶"}


@pytest.mark.parametrize("module", MODULES, ids=by_id)
def test_no_module_types_its_measured_values(module):
    """The values a module's committed _metadata.yml gives (formatted from its data) appear on its pages only
    through {{< meta data.KEY >}}, never typed."""
    values = yaml.safe_load((ROOT / module.metadata_file).read_text(encoding="utf-8"))["data"]
    shown = measured_display_values(values)
    assert shown, f"{module.id}: no measured values to guard (is _metadata.yml empty?)"
    for page in sorted(module.dir.glob("*.qmd")):
        raw = page.read_text(encoding="utf-8")
        for v in shown:
            hit = re.search(r"(?<![\w.,])" + re.escape(v) + r"(?![\w]|[.,]\d)", raw)
            assert not hit, f"{page.relative_to(ROOT)} types {module.id}'s measured value {v!r}: " + \
                raw[max(0, hit.start() - 60):hit.end() + 30].replace("\n", " ")


@pytest.mark.parametrize("module", MODULES, ids=by_id)
def test_colab_link_is_typed_nowhere(module):
    cfg = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))["course"]
    for page in [HOME, *pages(module)]:  # the repository path is typed nowhere else: pages use {{< colab >}}
        assert cfg["github"] not in page.read_text(encoding="utf-8"), page
    for name in ("lab.qmd", "index.qmd"):
        assert "{{< colab >}}" in (module.dir / name).read_text(encoding="utf-8"), f"{module.id}/{name} has no Colab link"


def colab_render(tmp_path: Path, module: course.Module, env: dict) -> str:
    """The Colab shortcode rendered in a one-page Quarto project that has the course extension and a
    module folder like this project's (seconds, not the whole site)."""
    proj = tmp_path / "proj"
    shutil.copytree(ROOT / "_extensions", proj / "_extensions")
    cfg = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))
    (proj / "_quarto.yml").write_text(yaml.safe_dump({"project": {"type": "default"}, "course": cfg["course"]}))
    page_dir = proj / module.page_dir
    page_dir.mkdir(parents=True)
    shutil.copy(module.dir / "module.yml", page_dir / "module.yml")
    (page_dir / "page.qmd").write_text("---\ntitle: t\n---\n\n{{< colab >}}\n\nAddress: {{< colab url >}}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_REPOSITORY", "COURSE_REF")} | env
    res = subprocess.run(["quarto", "render", str(page_dir / "page.qmd"), "--to", "html"], cwd=proj, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return (page_dir / "page.html").read_text(encoding="utf-8")


@pytest.mark.render
@pytest.mark.skipif(not shutil.which("quarto"), reason="needs quarto on PATH to render the Colab shortcode")
@pytest.mark.parametrize("module", MODULES, ids=by_id)
def test_colab_link_is_the_published_repositorys_notebook(tmp_path, module):
    """{{< colab >}}: course.github and course.branch locally; on GitHub's runners the repository being
    published (GITHUB_REPOSITORY: a fork publishes working links) and the ref (COURSE_REF).  The path is
    the module's student notebook, as committed in the repository."""
    cfg = yaml.safe_load((ROOT / "_quarto.yml").read_text(encoding="utf-8"))["course"]
    notebook = module.notebook.relative_to(ROOT).as_posix()
    assert subprocess.run(["git", "ls-files", "--error-unmatch", notebook], cwd=ROOT, capture_output=True).returncode == 0
    local = f"https://colab.research.google.com/github/{cfg['github']}/blob/{cfg['branch']}/{notebook}"
    html = colab_render(tmp_path / "local", module, {})
    assert f'href="{local}"' in html and f"Address: {local}" in html and "Open in Colab" in html
    fork = f"https://colab.research.google.com/github/someone/fork/blob/v2/{notebook}"
    html = colab_render(tmp_path / "fork", module, {"GITHUB_REPOSITORY": "someone/fork", "COURSE_REF": "v2"})
    assert f'href="{fork}"' in html and cfg["github"] not in html
