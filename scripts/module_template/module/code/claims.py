"""The prose's claims about {{TITLE}}'s measured numbers (scripts/measure/claims.py evaluates CLAIMS).  The claims an
After-the-Lab box makes are data, in ../claims.json, which the page also checks on a student's own run; the ones
that need Python are written here as functions returning (holds, detail)."""
from __future__ import annotations

from scripts.measure.claims import Claim, data_claims

from . import MODULE

DATA = data_claims(MODULE)

CLAIMS: tuple[Claim, ...] = (
    DATA["entropy_grows_with_temperature"],
)
