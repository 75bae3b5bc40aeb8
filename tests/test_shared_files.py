"""The shared machinery names no module: what a module owns (its id, its title, its demos' classes) appears only
in its own folders, so a second module needs no edit of the shared files (README: "A module is a folder").
Shared: scripts/ (but the module template, which is a module), the course extension, site.css, package.json
and the workflows.  _quarto.yml is not: its navbar's menu lists the modules."""
from __future__ import annotations

import re

from scripts import course
from scripts.paths import ROOT

SHARED = [p for p in (ROOT / "scripts").rglob("*") if p.is_file() and "module_template" not in p.parts
          and "__pycache__" not in p.parts] \
    + [p for p in (ROOT / "_extensions").rglob("*") if p.is_file()] \
    + [ROOT / "site.css", ROOT / "package.json", *(ROOT / ".github" / "workflows").glob("*.yml")]
DEMO_CLASSES = re.compile(r"^//\|\s*classes:\s*(.+)$", re.M)


def module_names(m: course.Module) -> set[str]:
    """What names module m: its id, its title and number as the pages write them, and its demos' own classes."""
    names = {m.id, f"Module {m.number}", m.title}
    for partial in m.dir.glob("_*.ojs"):
        for line in DEMO_CLASSES.findall(partial.read_text(encoding="utf-8")):
            names |= {c for c in line.split() if c not in {"demo", "demo-standin"}}
    return names


def test_the_shared_files_name_no_module():
    assert len(SHARED) > 40 and ROOT / "_extensions" / "course" / "demo.css" in SHARED
    found = []
    for m in course.modules():
        names = module_names(m)
        assert m.id in names and any(n.endswith("-demo") for n in names), m.id   # the check sees what it looks for
        for path in SHARED:
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(ROOT)} names {n!r} ({m.id})" for n in sorted(names)
                      if re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", text)]
    assert not found, "\n".join(found)


def test_a_module_keeps_its_demos_places_in_its_folder():
    """Each demo that keeps a place until it draws (class demo-standin) has that place in its module's own
    demos.css, which the module's page and deck name."""
    for m in course.modules():
        classes = {c for partial in m.dir.glob("_*.ojs") for line in DEMO_CLASSES.findall(partial.read_text(encoding="utf-8"))
                   if "demo-standin" in line.split() for c in line.split() if c.endswith("-demo") and c != "demo-standin"}
        if not classes:
            continue
        css = (m.dir / "demos.css").read_text(encoding="utf-8")
        for c in classes:
            assert re.search(r"\." + re.escape(c) + r" \{ --demo-place: [\d.]+rem; \}", css), f"{m.id}: .{c} has no place in its demos.css"
        for page in ("index.qmd", "slides.qmd"):
            assert re.search(r"^css:\s*demos\.css\s*$", (m.dir / page).read_text(encoding="utf-8"), re.M), page
