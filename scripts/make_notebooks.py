"""Writes the student notebook lab/lab03_sequence_models.ipynb from the one lab source.

    python -m scripts.make_notebooks            # regenerate
    python -m scripts.make_notebooks --check    # exit 1 if the committed notebook is out of date
    python -m scripts.make_notebooks --solution build/lab03_solution.ipynb   # also write the solution version
"""
import argparse
import sys
from pathlib import Path

from scripts import paths
from scripts.files import write_if_changed
from scripts.lab_source import notebook_text, solution_notebook, student_notebook


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if the student notebook is out of date")
    parser.add_argument("--solution", type=Path, help="also write the solution notebook to this path")
    args = parser.parse_args(argv)

    text = notebook_text(student_notebook())
    student = paths.STUDENT_NOTEBOOK
    if args.check:
        if not student.is_file() or student.read_text() != text:
            print(f"{student} is out of date with its source: run python -m scripts.make_notebooks",
                  file=sys.stderr)
            return 1
        print(f"{student.name} is up to date")
        return 0
    if write_if_changed(student, text):
        print(f"wrote {student}")
    if args.solution:
        args.solution.parent.mkdir(parents=True, exist_ok=True)
        args.solution.write_text(notebook_text(solution_notebook()))
        print(f"wrote {args.solution}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
