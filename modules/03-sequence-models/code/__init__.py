"""Module 3's own build code, found by the shared machinery through modules/<id>/code/ (see
scripts/course.py, ModuleBuild): claims.py, plots.py, page_data.py, summary.py, worked_examples.py,
diagrams.py.  MODULE is this module, read from its module.yml."""
from pathlib import Path

from scripts import course

MODULE = course.module(Path(__file__).resolve().parent.parent.name)
