"""The prose's claims about {{TITLE}}'s measured numbers (scripts/claims.py evaluates CLAIMS)."""
from __future__ import annotations

from scripts.claims import Claim


def entropy_grows_with_temperature(d):
    h = d["temperature_sweep"]["entropy"]
    return all(b > a for a, b in zip(h, h[1:])), f"entropy by temperature: {', '.join(f'{x:.3f}' for x in h)}"


CLAIMS: tuple[Claim, ...] = (
    Claim("entropy_grows_with_temperature",
          "The softmax's entropy grows with the temperature (section 1).", entropy_grows_with_temperature),
)
