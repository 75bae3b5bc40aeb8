"""Writes each module's student notebook (lab/<id>/<name>.ipynb) from its one lab source.

    python -m scripts.measure.make_notebooks                      # regenerate every module's
    python -m scripts.measure.make_notebooks --module ID --check  # exit 1 if the committed notebook is out of date
    python -m scripts.measure.make_notebooks --module ID --solution build/solution.ipynb   # also the solution version
"""
import argparse
import sys
from pathlib import Path

from scripts import course
from scripts.files import write_if_changed
from scripts.measure.lab_source import notebook_text, solution_notebook, student_notebook
from scripts.paths import rel


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    course.add_module_argument(parser)
    parser.add_argument("--check", action="store_true", help="fail if a student notebook is out of date")
    parser.add_argument("--solution", type=Path, help="also write the solution notebook to this path (one module)")
    args = parser.parse_args(argv)
    modules = course.selected(args.module)
    if args.solution and len(modules) != 1:
        parser.error("--solution needs --module ID")
    status = 0
    for module in modules:
        text = notebook_text(student_notebook(module))
        student = module.notebook
        if args.check:
            if not student.is_file() or student.read_text() != text:
                print(f"{rel(student)} is out of date with its source: run python -m scripts.measure.make_notebooks",
                      file=sys.stderr)
                status = 1
            else:
                print(f"{rel(student)} is up to date")
            continue
        if write_if_changed(student, text):
            print(f"wrote {rel(student)}")
        if args.solution:
            args.solution.parent.mkdir(parents=True, exist_ok=True)
            args.solution.write_text(notebook_text(solution_notebook(module)))
            print(f"wrote {args.solution}")
    return status


if __name__ == "__main__":
    sys.exit(main())
