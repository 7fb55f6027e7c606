"""Shrink a failing fuzz input to a small one that fails the same way.

    python fuzz/minimize.py validator fuzz/artifacts/validator/crash-<sha> [-o OUT]

Loads the harness in-process (no libFuzzer) and removes chunks of bytes, then single bytes,
for as long as the input still fails with the same kind of failure (the `[kind]` of an
oracle failure, or the exception type). Prints the result and writes it to OUT (default:
the input's path + ".min"). libFuzzer's own -minimize_crash needs a target that survives
its crashes; this does not.
"""

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def signature(exc) -> str:
    text = str(exc)
    if text.startswith("[") and "]" in text:
        return text[:text.index("]") + 1]
    return type(exc).__name__


def failure(one_input, data):
    try:
        one_input(data)
    except Exception as exc:  # the harness's failures are exceptions
        return signature(exc)
    return None


def shrink(one_input, data: bytes, want: str) -> bytes:
    chunk = max(1, len(data) // 2)
    while chunk >= 1:
        i = 0
        changed = False
        while i < len(data):
            candidate = data[:i] + data[i + chunk:]
            if candidate != data and failure(one_input, candidate) == want:
                data = candidate
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return data


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("harness", choices=["validator", "hook", "rules"])
    ap.add_argument("input")
    ap.add_argument("-o", "--out")
    args = ap.parse_args(argv)
    with open(args.input, "rb") as fh:
        data = fh.read()
    saved = sys.argv
    sys.argv = [saved[0]]  # the harness reads libFuzzer flags from argv at import
    harness = importlib.import_module(f"fuzz_{args.harness}")
    sys.argv = saved
    want = failure(harness.one_input, data)
    if want is None:
        print(f"{args.input} does not fail (is the bug skipped as open? "
              "GATEWAY_FUZZ_SHOW_OPEN_BUGS=1)")
        return 1
    small = shrink(harness.one_input, data, want)
    out = args.out or args.input + ".min"
    with open(out, "wb") as fh:
        fh.write(small)
    print(f"{want}: {len(data)} -> {len(small)} bytes: {small!r}\nwritten to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
