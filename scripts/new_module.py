"""Writes a new module from the template (scripts/module_template/), builds it and formats its page data.

    python3 -m scripts.new_module --id 04-attention --title "Attention"      (make module ID=... TITLE=...)

It writes only the new module's own folders and its registration:
    modules/<id>/   module.yml, index.qmd (one numbered equation, a collapsed callout with an OJS demo
                    reading the module's data), slides.qmd (two slides with notes), lab.qmd, glossary.qmd,
                    build/ (claims, plots, page data), demo-places.css (its demo's place until it draws,
                    as measured on a module made from the template; `make demo-places MODULE=<id>`
                    measures it again once the module's demo changes)
    lab/<id>/       the lab source (one exercise with its hint, folded solution and checkpoint, a results
                    cell) and the student notebook
    data/<id>/      results.schema.json, and results.json from a run of the lab (its settings are tiny)
    _quarto.yml     one navbar menu for the module (the only shared file it touches)
Then `quarto render` renders the course with it.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from scripts import course, paths

TEMPLATE = Path(__file__).resolve().parent / "module_template"
NAVBAR_MARK = "      # make module adds a module's menu above this line"


def placeholders(module_id: str, title: str) -> dict[str, str]:
    number = int(module_id[:2])
    return {"{{ID}}": module_id, "{{TITLE}}": title, "{{NUMBER}}": str(number),
            "{{LAB_NAME}}": f"lab{number:02d}_{module_id[3:].replace('-', '_')}"}


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def targets(module_id: str, values: dict[str, str]) -> dict[Path, Path]:
    """{template file: where it goes in the project}."""
    out = {}
    for src in sorted(TEMPLATE.rglob("*")):
        if src.is_dir() or "__pycache__" in src.parts:
            continue
        rel = src.relative_to(TEMPLATE)
        part, rest = rel.parts[0], Path(*rel.parts[1:])
        if part == "module":
            out[src] = paths.MODULES / module_id / rest
        elif part == "lab":
            out[src] = paths.ROOT / "lab" / module_id / f"{values['{{LAB_NAME}}']}.py"
        elif part == "data":
            out[src] = paths.ROOT / "data" / module_id / rest
    return out


def navbar_menu(module_id: str, values: dict[str, str]) -> str:
    base = f"modules/{module_id}"
    items = "".join(f"          - text: {text}\n            href: {base}/{page}.qmd\n"
                    for text, page in (("Briefing", "index"), ("Slides", "slides"), ("Lab", "lab"),
                                       ("Glossary", "glossary")))
    return f"      - text: Module {values['{{NUMBER}}']}\n        menu:\n{items}"


def register(module_id: str, values: dict[str, str]) -> None:
    config = paths.QUARTO_CONFIG.read_text(encoding="utf-8")
    if NAVBAR_MARK not in config:
        raise SystemExit(f"new_module: {paths.rel(paths.QUARTO_CONFIG)} lacks the line {NAVBAR_MARK.strip()!r}")
    paths.QUARTO_CONFIG.write_text(config.replace(NAVBAR_MARK, navbar_menu(module_id, values) + NAVBAR_MARK),
                                   encoding="utf-8")


def run(*args: str) -> None:
    print("$ python3 -m " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", *args], cwd=paths.ROOT, check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--id", required=True, help="NN-words, e.g. 04-attention (NN: the module's number)")
    ap.add_argument("--title", required=True)
    ap.add_argument("--no-build", action="store_true", help="write the files only")
    args = ap.parse_args(argv)
    if not course.MODULE_ID.match(args.id):
        ap.error(f"--id {args.id!r}: two digits and words joined by '-', e.g. 04-attention")
    if (paths.MODULES / args.id).exists():
        ap.error(f"modules/{args.id} exists already")
    if any(m.number == int(args.id[:2]) for m in course.modules()):
        ap.error(f"a module numbered {int(args.id[:2])} exists already")
    values = placeholders(args.id, args.title)
    for src, dest in targets(args.id, values).items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(fill(src.read_text(encoding="utf-8"), values), encoding="utf-8")
        print(f"new_module: {paths.rel(dest)}")
    register(args.id, values)
    course._modules.cache_clear()
    if not args.no_build:
        run("scripts.measure.make_notebooks", "--module", args.id)
        run("scripts.measure.build", "--module", args.id, "--settings", "full")
        run("scripts.pages.site_data", "--module", args.id)
    print(f"new_module: modules/{args.id} is ready; `quarto render` shows it on the course home; after changing its "
          f"demos, `make demo-places MODULE={args.id}` measures their places (modules/{args.id}/demo-places.css)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
