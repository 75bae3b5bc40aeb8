"""{{TITLE}}'s own build code (scripts/course.py, ModuleBuild): claims.py, plots.py, page_data.py."""
from pathlib import Path

from scripts import course

MODULE = course.module(Path(__file__).resolve().parent.parent.name)
