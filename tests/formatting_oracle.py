"""scripts/pages/formatting.py as a line-by-line oracle for the JavaScript property test
(tests/js/formatting-properties.test.mjs), which asks it what the Python shows for each double it draws.

One JSON request a line on stdin, {"function": "fmt_fixed", "args": [{"bits": "3ff0000000000000"}, 2]},
one JSON answer a line on stdout, {"text": "1.00"} or {"error": "TypeError: ..."}.  A double travels as
its 64 bits in hex, so that -0, NaN's payload, subnormals and every last bit arrive as they were drawn
(JSON has no NaN, no infinity, and a decimal round trip is the thing being tested).
"""
import json
import struct
import sys

from scripts.pages import formatting      # run as `python -m tests.formatting_oracle` from the project root


def double(bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(bits))[0]


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def arg(a):
    return double(a["bits"]) if isinstance(a, dict) else a


def answer(request: dict) -> dict:
    fn = getattr(formatting, request["function"])
    try:
        return {"text": fn(*[arg(a) for a in request["args"]])}
    except Exception as err:                     # the JS side reports it as a difference, with the input
        return {"error": f"{type(err).__name__}: {err}"}


def main() -> None:
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line)), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
