"""Wrappers that change nothing a decision depends on are judged as the command they run.

`timeout 120 pytest -q` runs `pytest -q` and stops it after two minutes; `nice -n 10 make`
runs make at a lower priority; `stdbuf -oL ...` changes its output buffering; `command ls`
skips shell functions. None of them reads, writes or contacts anything itself, so the line is
allowed exactly when the wrapped command is (rules/default.yaml: `transparent: true`, with
the wrapper's own options an allowlist in `safe_flags`). An option outside that list asks
(GW706), as every other wrapper does.
"""

from gateway.decision import ALLOW

_MAX_DEPTH = 8


def judge(ctx, lname, argv, wrapper, cwd, depth, judge_argv, inputs=()):
    from gateway.validator.phase7a_command import peel_wrapper

    safe = frozenset(wrapper.get("safe_flags") or ())
    values = frozenset(wrapper.get("value_flags") or ())
    inner = peel_wrapper(argv, wrapper)
    own = argv[1:len(argv) - len(inner)] if inner else argv[1:]
    i = 0
    while i < len(own):
        w = own[i]
        if w == "--" or not w.startswith("-") or w == "-":
            i += 1
            continue
        name = w.split("=", 1)[0]
        glued = not w.startswith("--") and len(w) > 2 and w[:2] in values
        if name not in safe and not (glued and w[:2] in safe):
            return ctx.ask("7A", "GW706", f"{lname} {w}: an option of the wrapper the "
                           "gateway does not model", rule=f"wrappers:{lname}")
        if name in values and "=" not in w and not glued:
            i += 1  # its value
        i += 1
    if not inner:
        return ctx.ask("7A", "GW706", f"{lname} without a command to run",
                       rule=f"wrappers:{lname}")
    if depth >= _MAX_DEPTH:
        return ctx.ask("7A", "GW706", f"{lname} runs commands nested too deeply to judge",
                       rule=f"wrappers:{lname}")
    ctx.step("7A", "info", "", f"{lname} runs {inner[0]!r}: judged as that command")
    # the wrapped command reads what the shell opens for the line (`nice cat < .env`)
    verdict = judge_argv(ctx, list(inner), cwd, " ".join(inner), (), depth + 1,
                         inputs=list(inputs or ()))
    if verdict.decision is not ALLOW:
        return verdict
    return ctx.allow("7D", verdict.code, f"{lname} runs {inner[0]!r}, which is allowed: "
                     f"{verdict.message}", rule=verdict.rule or f"wrappers:{lname}")
