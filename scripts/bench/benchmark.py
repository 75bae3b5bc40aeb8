"""Measures what a module's lab costs on this machine: each module's code/benchmark.py (main(argv)).

    python -m scripts.bench.benchmark [--module ID] [-- ARGS FOR THE MODULE'S BENCHMARK]
"""
import argparse
import sys

from scripts import course


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    course.add_module_argument(ap)
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="passed to the module's benchmark")
    args = ap.parse_args(argv)
    for module in course.selected(args.module):
        if module.code.has("benchmark"):
            print(f"== {module.id}")
            module.code.benchmark.main([a for a in args.rest if a != "--"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
