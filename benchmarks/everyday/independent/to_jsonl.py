#!/usr/bin/env python3
"""Turn the five lists into one JSON Lines file with the exact command text.

In a line whose command holds a here-doc ("<<"), the two-character sequences \\n and \\t
stand for a newline and a tab; they are expanded here. No other line uses them.
Usage: python3 to_jsonl.py > everyday.jsonl
"""
import json
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
for name in ("python", "node", "go", "rust", "java"):
    section = ""
    for n, line in enumerate((here / f"{name}.txt").read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("# ---"):
            section = line.strip("# -")
            continue
        if not line or line.startswith("#"):
            continue
        command, expect = line.rsplit("\t", 1)
        if "<<" in command:
            command = command.replace("\\n", "\n").replace("\\t", "\t")
        json.dump({"ecosystem": name, "line": n, "section": section,
                   "command": command, "expect": expect}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
