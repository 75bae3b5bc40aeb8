"""Numbers that are facts of the course, not measurements (those live in data/<id>/results.json)."""
from __future__ import annotations

import math

VOCAB_SIZE = 65                 # distinct characters in Tiny Shakespeare
LN65 = math.log(VOCAB_SIZE)     # nats per character of the uniform guess
