"""What the tests share (not tests themselves): the module whose lab, data and pages they check, by
its id, and its module build code.  A second module's tests take their module the same way."""
from __future__ import annotations

from scripts import course

MODULE_ID = "03-sequence-models"
M3 = course.module(MODULE_ID)
