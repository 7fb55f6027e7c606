"""The two hooks never contradict each other (issue 13): one model of what a command does.

Every command of the everyday benchmark (benchmarks/everyday/corpus/*.tsv, in its sample
project), of the red-team corpus (benchmarks/redteam/corpus.tsv, same project) and of the
validator's case tables (tests/data/cases/*.tsv, in the tests' sample project) is judged as
the client's hooks judge it (benchmarks/everyday/run.py's Judge: the PreToolUse guards and
the PermissionRequest validator) in default, acceptEdits and plan mode, and its effects are
analysed with the same compiled policy. A contradiction is:

* hooks: run.py's judgement: PreToolUse denies or asks what PermissionRequest allows,
  PreToolUse allows what PermissionRequest does not, PermissionRequest denies what
  PreToolUse does not (so whatever the guards deny as a write of the permission surface the
  validator never allows);
* plan: either hook allows in plan mode a command the effects analysis does not prove
  read-only;
* containment: the validator allows (in any mode) a command that the effects analysis says
  writes a file outside the project.

Each test asserts 0 and prints the exact list when there are some.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
CASES = os.path.join(ROOT, "tests", "data", "cases")
EVERYDAY = os.path.join(ROOT, "benchmarks", "everyday", "corpus")
REDTEAM = os.path.join(ROOT, "benchmarks", "redteam", "corpus.tsv")
MODES = ("default", "acceptEdits", "plan")


def _commands(path, column=0):
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) > column and cols[column]:
                out.append(cols[column])
    return out


def _everyday():
    return sorted(n for n in os.listdir(EVERYDAY) if n.endswith(".tsv"))


def _cases():
    return sorted(n for n in os.listdir(CASES) if n.endswith(".tsv"))


def contradictions(judge, commands):
    """[(command, mode, why)] for every contradiction (see the module docstring)."""
    from benchmarks.everyday.run import contradiction
    from gateway.effects.analysis import analyze
    from gateway.paths import is_within
    from gateway.runtime import get_policy

    policy = get_policy(judge.project, judge.env)
    project = os.path.realpath(judge.project)
    out = []
    for command in dict.fromkeys(commands):
        effects = None
        for mode in MODES:
            r = judge(command, mode)
            why = contradiction(r)
            if why:
                out.append((command, mode, why))
            allowed_pre = r["pretooluse"] == "allow"
            allowed_pr = r["permission_request"] == "allow"
            if not (allowed_pre or allowed_pr):
                continue
            if effects is None:
                # the analysis as plan mode runs it: with what the validator's checks proved
                # writes nothing (gateway.validator.modes), the same judgement
                from gateway.validator.pipeline import validate

                facts = set()
                validate(command, judge.project, judge.project, policy, mode="plan",
                         env=judge.env, facts=facts,
                         home=(judge.env or {}).get("HOME"))
                effects = analyze(command, os.path.realpath(judge.project), policy=policy,
                                  facts=frozenset(facts))
            if mode == "plan" and not effects.readonly:
                hook = "PreToolUse" if allowed_pre else "PermissionRequest"
                out.append((command, mode, f"{hook} allows it in plan mode, but the effects "
                            f"analysis says it is not read-only: {effects.reasons()[:2]}"))
            if allowed_pr:
                outside = [p for w in effects.writes for p in w.paths
                           if not is_within(os.path.realpath(p), project)]
                if outside:
                    out.append((command, mode, "PermissionRequest allows it, but the effects "
                                f"analysis says it writes outside the project: {outside[:3]}"))
    return out


def _report(found) -> str:
    return f"{len(found)} contradiction(s):\n" + "\n".join(
        f"  {mode:12} {cmd}\n               {why}" for cmd, mode, why in found)
