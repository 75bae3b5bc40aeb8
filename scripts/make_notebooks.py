"""Writes the student notebook lab/lab03_sequence_models.ipynb from the one lab source.

    python scripts/make_notebooks.py            # regenerate
    python scripts/make_notebooks.py --check    # exit 1 if the committed notebook is out of date
    python scripts/make_notebooks.py --solution build/lab03_solution.ipynb   # also write the solution version
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lab_source import STUDENT_NOTEBOOK, notebook_text, solution_notebook, student_notebook  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if the student notebook is out of date")
    parser.add_argument("--solution", type=Path, help="also write the solution notebook to this path")
    args = parser.parse_args(argv)

    text = notebook_text(student_notebook())
    if args.check:
        if not STUDENT_NOTEBOOK.is_file() or STUDENT_NOTEBOOK.read_text() != text:
            print(f"{STUDENT_NOTEBOOK} is out of date with its source: run python scripts/make_notebooks.py",
                  file=sys.stderr)
            return 1
        print(f"{STUDENT_NOTEBOOK.name} is up to date")
        return 0
    if not STUDENT_NOTEBOOK.is_file() or STUDENT_NOTEBOOK.read_text() != text:
        STUDENT_NOTEBOOK.write_text(text)
        print(f"wrote {STUDENT_NOTEBOOK}")
    if args.solution:
        args.solution.parent.mkdir(parents=True, exist_ok=True)
        args.solution.write_text(notebook_text(solution_notebook()))
        print(f"wrote {args.solution}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
