"""The course: its modules, each found from its folder's module.yml, and every path of a module.

A module is a folder `modules/<id>/` with a `module.yml` (id, number, title, schedule, lab); its
files follow one template, so that every path below comes from the id alone:

    modules/<id>/module.yml          the module's metadata (read here)
    modules/<id>/index.qmd, slides.qmd, lab.qmd, glossary.qmd, _*.qmd, *.js   pages, deck, partials, demos
    modules/<id>/_metadata.yml       the page values, formatted from data/ (scripts/pages/site_data.py; generated)
    modules/<id>/_generated/         the page partials (scripts/pages/site_data.py; generated)
    modules/<id>/code/              the module's own build code, a Python package (see ModuleCode)
    lab/<id>/<lab.source>            the one lab source; the student notebook beside it (.ipynb)
    data/<id>/results.json           what the lab measured, with provenance; results.schema.json beside it
    data/<id>/worked_examples.json   the page's worked examples, computed with the lab's code (optional)
    figures/<id>/                    the module's diagrams and measured plots
    tests/fixtures/<id>/results.json results for the tests (NOT measurements)

    from scripts import course
    for module in course.modules(): ...
    m = course.module(ID); m.lab_source, m.results, m.code.claims
"""
from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path

import yaml

from scripts import paths

MODULE_ID = re.compile(r"^\d\d-[a-z0-9]+(?:-[a-z0-9]+)*$")     # "NN-words": the number, then the name
REQUIRED = ("id", "number", "title", "summary", "schedule", "lab")
SCHEDULE_KEYS = ("day", "briefing_start", "lab_start", "briefing_minutes", "lab_minutes")


class ModuleError(Exception):
    """A module folder that does not follow the template, or an id that names no module."""


@dataclasses.dataclass(frozen=True)
class Module:
    id: str
    meta: dict

    # ---- metadata --------------------------------------------------------------------------
    @property
    def number(self) -> int:
        return int(self.meta["number"])

    @property
    def title(self) -> str:
        return self.meta["title"]

    @property
    def schedule(self) -> dict:
        return self.meta["schedule"]

    @property
    def lab(self) -> dict:
        return self.meta["lab"]

    # ---- the module's folders ----------------------------------------------------------------
    @property
    def dir(self) -> Path:
        return paths.MODULES / self.id

    @property
    def page_dir(self) -> Path:
        """The module's folder relative to the project (the site's path of its pages)."""
        return Path("modules") / self.id

    @property
    def lab_dir(self) -> Path:
        return paths.ROOT / "lab" / self.id

    @property
    def lab_source(self) -> Path:
        return self.lab_dir / self.lab["source"]

    @property
    def notebook(self) -> Path:
        return self.lab_source.with_suffix(".ipynb")

    @property
    def data_dir(self) -> Path:
        return paths.ROOT / "data" / self.id

    @property
    def results(self) -> Path:
        return self.data_dir / "results.json"

    @property
    def schema(self) -> Path:
        return self.data_dir / "results.schema.json"

    @property
    def worked_examples(self) -> Path:
        return self.data_dir / "worked_examples.json"

    @property
    def figures_dir(self) -> Path:
        return paths.ROOT / "figures" / self.id

    @property
    def fixture(self) -> Path:
        return paths.ROOT / "tests" / "fixtures" / self.id / "results.json"

    @property
    def generated(self) -> Path:
        """The page partials' folder, relative (site_data writes below any --out-root)."""
        return self.page_dir / "_generated"

    @property
    def metadata_file(self) -> Path:
        """Quarto's directory metadata: the module's page values, read by {{< meta data.KEY >}}."""
        return self.page_dir / "_metadata.yml"

    def corpus(self) -> Path | None:
        """The lab's data file: $LAB_CORPUS when set, else the module's `lab.corpus` (None: it reads none)."""
        value = os.environ.get("LAB_CORPUS") or self.lab.get("corpus")
        if not value:
            return None
        p = Path(value)
        return p if p.is_absolute() else (paths.ROOT / p).resolve()

    @property
    def code(self) -> "ModuleCode":
        return ModuleCode(self)


class ModuleCode:
    """The module's own build code: modules/<id>/code/, a package of these files:

        claims.py           CLAIMS: the checks of the prose's claims (functions data -> (ok, detail))
        plots.py            draw_all(data) -> {figure name: svg bytes}, FIGURE_NAMES
        page_data.py        variables(data, worked) -> the page values; partials(data, worked, values)
                            -> {file name: markdown}; WORKED_SHAPE (optional)
        summary.py          summary(data) -> lines the build prints (optional)
        worked_examples.py  compute(lab namespace) -> the worked examples (optional)
        diagrams.py         DIAGRAMS: {figure name: function -> svg text} (optional)
    """

    def __init__(self, module: Module):
        self.module = module
        # the package's name is its path (modules.<id>.code), as tools that key code by its import
        # name expect (mutmut); a name needs no identifier rules when the package is loaded by path
        self.package = f"modules.{module.id}.code"

    def _load_package(self):
        if self.package not in sys.modules:
            init = self.module.dir / "code" / "__init__.py"
            if not init.is_file():
                raise ModuleError(f"{paths.rel(init)} is missing: a module's build code is a package")
            spec = importlib.util.spec_from_file_location(self.package, init,
                                                          submodule_search_locations=[str(init.parent)])
            pkg = importlib.util.module_from_spec(spec)
            sys.modules[self.package] = pkg
            spec.loader.exec_module(pkg)
        return sys.modules[self.package]

    def has(self, name: str) -> bool:
        return (self.module.dir / "code" / f"{name}.py").is_file()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        self._load_package()
        if not self.has(name):
            raise AttributeError(f"{self.module.id} has no code/{name}.py")
        return importlib.import_module(f"{self.package}.{name}")


def read_metadata(folder: Path) -> dict:
    path = folder / "module.yml"
    try:
        meta = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ModuleError(f"{paths.rel(path)}: {err}") from err
    missing = [k for k in REQUIRED if k not in meta]
    missing += [f"schedule.{k}" for k in SCHEDULE_KEYS if k not in (meta.get("schedule") or {})]
    if "source" not in (meta.get("lab") or {}):
        missing.append("lab.source")
    if missing:
        raise ModuleError(f"{paths.rel(path)} lacks {', '.join(missing)}")
    if meta["id"] != folder.name or not MODULE_ID.match(folder.name):
        raise ModuleError(f"{paths.rel(path)}: id {meta['id']!r} must be the folder's name, "
                          "two digits and words joined by '-' (e.g. 04-attention)")
    return meta


@functools.lru_cache(maxsize=None)
def _modules(root: str) -> tuple[Module, ...]:
    found = [Module(folder.name, read_metadata(folder))
             for folder in sorted(Path(root).glob("*/")) if (folder / "module.yml").is_file()]
    return tuple(sorted(found, key=lambda m: (m.number, m.id)))


def modules() -> tuple[Module, ...]:
    """Every module of the course, in the order of their numbers."""
    return _modules(str(paths.MODULES))


def module(module_id: str) -> Module:
    for m in modules():
        if m.id == module_id:
            return m
    known = ", ".join(m.id for m in modules()) or "none"
    raise ModuleError(f"no module {module_id!r} (modules/<id>/module.yml); the course has: {known}")


def selected(module_id: str | None) -> tuple[Module, ...]:
    """The module named (a command's --module), or every module when none is named."""
    return (module(module_id),) if module_id else modules()


def add_module_argument(parser) -> None:
    parser.add_argument("--module", metavar="ID", default=os.environ.get("MODULE") or None,
                        help="one module's id (modules/<id>/module.yml); default: every module")
