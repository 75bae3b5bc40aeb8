"""What {{TITLE}}'s pages show, formatted from its data (scripts/pages/site_data.py calls these)."""
from __future__ import annotations

from scripts.pages.formatting import fmt_fixed, fmt_short
from scripts.pages.site_data import provenance_line

from . import MODULE


def variables(data: dict, worked: dict | None) -> dict:
    s = data["temperature_sweep"]
    return {"sweep": {"tau_first": fmt_short(s["tau"][0]), "tau_last": fmt_short(s["tau"][-1]),
                      "entropy_first": fmt_fixed(s["entropy"][0], 3), "entropy_last": fmt_fixed(s["entropy"][-1], 3)}}


def partials(data: dict, worked: dict | None, values: dict) -> dict[str, str]:
    return {"_provenance.md": "::: {.provenance}\n" + provenance_line(data["provenance"], MODULE) + "\n:::\n"}
