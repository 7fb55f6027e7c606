"""The eight-phase validator: S0, 1, 1.5, 2, 3 on the whole command, then 4 to 7 per segment.

The first of S0-3 to refuse decides (after the deny rules had their look at whatever
parsed). Otherwise every segment of the list/pipeline is judged on its own, with `cd`
segments tracked so later segments resolve paths from every directory they might run in;
the strictest segment decides. Any exception becomes ask (GW902): never allow on an error.
"""

import os

from gateway import usershell
from gateway.decision import ALLOW, ASK, DENY, Verdict, strictest
from gateway.paths import resolve, usable
from gateway.validator import (
    deny,
    phase1_5_suffix,
    phase1_chars,
    phase2_syntax,
    phase3_parse,
    phase_s0_null,
)
from gateway.validator.context import Context

# usershell: the client runs zsh, and the command means something else there (GW785)
WHOLE_COMMAND_PHASES = (phase_s0_null, phase1_chars, phase1_5_suffix, usershell,
                        phase2_syntax, phase3_parse)
#: Commands up to this length are parsed for the deny rules even when an earlier phase
#: refused them (too long for limits.max_command_length, a control character...): padding a
#: catastrophic command, or a layer lowering the limit, must not turn deny into ask. Fixed
#: here, not in the rules, so that no layer can lower it. Beyond it: ask, never allow.
DENY_SCAN_MAX = 65536


def validate(command, cwd, project, policy, tool_name="Bash", settings=None,
             raw_input=None, deny_only=False, exposure=False, mode=None, home=None,
             env=None, facts=None) -> Verdict:
    """Judge one Bash command. `cwd` is where it runs, `project` the project directory.

    `deny_only` stops after the deny rules: a DENY is exactly the full validator's (only the
    deny rules, GW750 and GW709, deny, and they run before the segments), anything else is
    "no deny" (GW800), never an allow. Phases 4-7 are then neither run nor imported.

    `exposure` (the PreToolUse hook) asks another question with the same phases: may the
    command read a secret? The deny rules run as usual; then ALLOW means "every file it
    reads is known and none is a secret", ASK "a secret is read, or what is read cannot be
    known". Paths outside the project, writes and output redirections are no reason to ask
    there, and a tilde is expanded with `home`.

    `mode` is the payload's permission_mode (gateway.validator.modes). `env` is the
    environment the command runs in (None: this process's), where build tools find part of
    their configuration (GOFLAGS, PYTEST_ADDOPTS, npm_config_*...)."""
    if not isinstance(command, str):
        return Verdict(ASK, "S0", "GW904", "", "the command is not a string",
                       command=repr(command))
    for what, path in (("working directory", cwd), ("project directory", project)):
        if path is not None and not usable(path):
            return Verdict(ASK, "S0", "GW904", "", f"the {what} is not a valid path: "
                           f"{path!r}", command=command)
    cwd = os.path.realpath(cwd) if cwd else os.path.realpath(project)
    ctx = Context(command, cwd, project, policy, tool_name, settings, raw_input,
                  exposure=exposure, home=home, mode=mode, env=env)
    if facts is not None:
        # the caller sees what the checks proved writes nothing (plan mode's judgement:
        # tests/agreement compares the effects analysis with these proofs)
        ctx.readonly_facts = facts
    try:
        verdict = _run(ctx, deny_only)
        if not (deny_only or exposure or ctx.__dict__.get("substituted")):
            # (a line with substitutions had each of its commands judged by the mode:
            # _substitutions)
            from gateway.validator import modes

            verdict = modes.apply(ctx, verdict, mode)
    except RecursionError:
        verdict = ctx.ask("error", "GW902", "the command nests too deeply to judge")
    except Exception as exc:  # never allow on an error
        verdict = ctx.ask("error", "GW902", f"internal error: {type(exc).__name__}: {exc}")
    verdict.trace = ctx.trace
    verdict.command = command
    return verdict


def _run(ctx, deny_only=False) -> Verdict:
    for phase in WHOLE_COMMAND_PHASES:
        if phase is phase2_syntax:
            verdict = _loops(ctx, deny_only) or _substitutions(ctx, deny_only)
            if verdict is not None:
                return verdict
        verdict = phase.run(ctx)
        if verdict is not None:
            if (ctx.script is None and ctx.parse_error is None and "\x00" not in ctx.text
                    and len(ctx.text) <= DENY_SCAN_MAX):
                phase2_syntax.parse(ctx)
            denied = deny.scan(ctx)
            return denied if denied is not None else verdict
    denied = deny.scan(ctx)
    if denied is not None:
        return denied
    if deny_only:
        return ctx.ask(deny.PHASE, "GW800", "no deny rule matches (phases 4-7 not run)")
    verdict = _segments(ctx)
    if verdict.decision is ALLOW and not ctx.exposure:
        # the writes the effects analysis names, judged as the PreToolUse guards judge
        # them: one model for both hooks (gateway.validator.written)
        from gateway.validator import written

        verdict = written.run(ctx) or verdict
    return verdict


def _loops(ctx, deny_only):
    """A line with `for` loops is judged as the commands they run (gateway.shell.loops):
    each loop replaced by its body once per value, the unrolled line through every phase.
    The loop as written has the deny rules' look first. A loop that is not unrolled asks
    (GW218). None: the line has no `for` loop."""
    script = phase2_syntax.parse(ctx)
    if script is None or not script.loops:
        return None
    from gateway.shell import loops

    unrolled = loops.unroll(script, ctx.cwd, ctx.home, ctx.env)
    if unrolled is None:
        return None
    denied = deny.scan(ctx)
    if denied is not None:
        return denied
    if isinstance(unrolled, loops.Refused):
        if deny_only:
            return ctx.ask(deny.PHASE, "GW800", "no deny rule matches (phases 4-7 not run)")
        return ctx.ask("2", "GW218", f"a for loop the gateway does not unroll: "
                       f"{unrolled.reason}")
    for note in unrolled.notes:
        ctx.step("2", "info", "", f"unrolled {note}")
    child = Context(unrolled.text, ctx.cwd, ctx.project, ctx.policy, ctx.tool_name,
                    ctx.settings, ctx.raw_input, exposure=ctx.exposure, home=ctx.home,
                    mode=ctx.mode, env=ctx.env)
    verdict = _run(child, deny_only)
    ctx.trace.extend(child.trace)
    what = "; ".join(unrolled.notes)
    if verdict.decision is ALLOW:
        return ctx.allow(verdict.phase, verdict.code, f"the loop runs {unrolled.count} "
                         f"command(s) ({what}), each allowed: {verdict.message}",
                         rule=verdict.rule)
    return Verdict(verdict.decision, verdict.phase, verdict.code, verdict.rule,
                   f"{verdict.message} (in the loop, unrolled: {what})")


def _substitutions(ctx, deny_only):
    """A line whose command substitutions are all `$(go env NAME)` of a path variable or a
    "$(CMD)" used as a string (gateway.validator.substitutions): the line with each replaced
    by its value goes through every phase, and each inner command is judged as its own
    command; the strictest verdict stands. None: no such line (phase 2 asks GW201 for a
    substitution)."""
    script = phase2_syntax.parse(ctx)
    if script is None:
        return None
    from gateway.validator import substitutions

    rewritten = substitutions.rewrite(ctx, script)
    if rewritten is None:
        return None
    denied = deny.scan(ctx)
    if denied is not None:
        return denied
    for note in rewritten.notes:
        ctx.step("2", "info", "", note)
    ctx.substituted = True
    verdicts = []
    for text in [rewritten.text] + rewritten.inner:
        child = Context(text, ctx.cwd, ctx.project, ctx.policy, ctx.tool_name,
                        ctx.settings, ctx.raw_input, exposure=ctx.exposure, home=ctx.home,
                        mode=ctx.mode, env=ctx.env)
        verdict = _run(child, deny_only)
        if not (deny_only or ctx.exposure):
            # each command as the mode judges it alone (`gofmt -w .` inside is an edit)
            from gateway.validator import modes

            verdict = modes.apply(child, verdict, ctx.mode)
        ctx.trace.extend(child.trace)
        verdicts.append((text, verdict))
    worst = strictest([v for _t, v in verdicts])
    what = "; ".join(rewritten.notes)
    if worst.decision is ALLOW:
        return ctx.allow(worst.phase, worst.code, f"{what}; the command and each substitution "
                         f"are allowed: {verdicts[0][1].message}", rule=worst.rule)
    text = next(t for t, v in verdicts if v is worst)
    where = "" if text == rewritten.text else f" (in the substitution $({text}))"
    return Verdict(worst.decision, worst.phase, worst.code, worst.rule,
                   f"{worst.message}{where} ({what})")


def _feeders(pipeline, n):
    """The commands before the n-th of a pipeline whose output reaches it through plain
    `|` (nearest last); None when its input is not a pipe, or `|&` mixes in errors."""
    if n == 0:
        return None
    pipes = getattr(pipeline, "pipes", None) or ()
    if len(pipes) < n or any(p != "|" for p in pipes[:n]):
        return None
    return list(pipeline.commands[:n])


def _inside(ctx, cwd) -> bool:
    return resolve(".", cwd, ctx.roots).status == "inside"


def _segments(ctx) -> Verdict:
    from gateway.validator import segment
    from gateway.validator.checks._common import changes_git_state

    # Every directory a later segment might run in: after `cd X`, X; and, since a cd can
    # fail, where we were. A segment joined by && to a cd runs only if the cd succeeded.
    all_cwds = [ctx.cwd]
    chain = [ctx.cwd]
    verdicts = []
    count = 0
    prev_op = None
    # the chain is certain only while every link so far was `&&` and no cd was negated:
    # in `A || cd X && B` B runs where we were when A succeeds; in `! cd X && B`, when the
    # cd failed
    certain = True
    # a segment that may change a git repository (commit, stash, fetch...) makes what git
    # says about it stale for the segments after it, and for the others of its pipeline,
    # which run at the same time (checks/git.py asks then, GW745)
    git_change = [changes_git_state([w.value or "" for w in c.words]) for p, _ in ctx.script.items
                  for c in p.commands]
    k = 0
    # one command, one evolving state (gateway.validator.state_model): what the segments
    # before a segment (and beside it in a pipeline) write, against what it relies on
    state = _State(ctx) if len(git_change) > 1 else None
    for pipeline, op in ctx.script.items:
        cwds = chain if prev_op == "&&" and certain else all_cwds
        if len(pipeline.commands) > 1 and any(git_change[k:k + len(pipeline.commands)]):
            ctx.git_changed = True
        if state is not None:
            state.enter(pipeline.commands, cwds)
        for n, cmd in enumerate(pipeline.commands):
            count += 1
            k += 1
            # what feeds this command's standard input through `|` (gateway.validator.xargs)
            ctx.pipe_feeders = _feeders(pipeline, n)
            for cwd in cwds:
                if state is not None:
                    state.begin(cmd)
                v = segment.judge_shell_state(ctx, cmd, cwd) or segment.judge(ctx, cmd, cwd)
                if v.decision is ALLOW and not ctx.exposure and not _inside(ctx, cwd):
                    v = ctx.ask("5", "GW508", f"the working directory {cwd} is outside the "
                                "project: what the command reads or writes there by default "
                                "(`.`) cannot be proven to stay inside")
                if state is not None:
                    v = state.end(cmd, cwd, v)
                verdicts.append(v)
                if v.decision is DENY:
                    return v
            if git_change[k - 1]:
                ctx.git_changed = True
        if state is not None:
            state.leave(pipeline.commands)
        chain = list(cwds)
        if len(pipeline.commands) == 1:
            new = list(dict.fromkeys(t for c in cwds
                                     for t in segment.cd_targets(ctx, pipeline.commands[0], c)))
            if new:
                chain = new
                all_cwds = all_cwds + [t for t in new if t not in all_cwds]
                if getattr(pipeline, "negated", False):
                    certain = False
        if op not in ("&&", None):
            certain = False
        prev_op = op
    best = strictest(verdicts)
    if best.decision is ALLOW and count > 1:
        best = Verdict(ALLOW, best.phase, best.code, best.rule,
                       f"all {count} segments are allowed on their own")
        ctx.step(best.phase, "allow", best.code, best.message)
    return best


class _State:
    """The evolving state of one command for the segment loop (gateway.validator.
    state_model): the writes of the pipelines already judged, those of a segment's siblings
    in its pipeline (they run at the same time), and what each segment relied on."""

    def __init__(self, ctx):
        from gateway.validator import state_model

        self.ctx = ctx
        self.model = state_model
        self.done = state_model.Earlier()  # the pipelines before this one
        self.effects = {}  # id(cmd) -> [Effects per directory]
        self.own = {}  # id(cmd) -> paths the validator's checks found written
        self.cmds = []

    def _effects(self, cmd, cwds):
        key = id(cmd)
        if key not in self.effects:
            self.effects[key] = self.model.segment_effects(self.ctx, cmd, cwds) or []
        return self.effects[key]

    def enter(self, cmds, cwds):
        self.cmds = list(cmds)
        for c in cmds:
            self._effects(c, cwds)

    def earlier(self, cmd):
        out = self.model.Earlier()
        out.writes = list(self.done.writes)
        out.unfollowed = list(self.done.unfollowed)
        for c in self.cmds:
            if c is not cmd:
                for eff in self.effects.get(id(c), ()):
                    out.add_effects(eff, c.text)
        return out

    def begin(self, cmd):
        self.ctx.relied = self.model.Relied()
        self.ctx.seg_writes = self.own.setdefault(id(cmd), [])

    def end(self, cmd, cwd, verdict):
        rel = self.ctx.relied
        self.ctx.relied = None
        self.ctx.seg_writes = None
        effs = self.effects.get(id(cmd)) or []
        # what it does that the analysis cannot follow (code it runs), where it may run
        unknown = list(dict.fromkeys(x for e in effs for x in e.unknown)) if effs else [
            "its effects could not be analysed"]
        for e in effs:
            for w in e.writes:
                rel.paths.extend((w.target, p, p) for p in w.paths)
        words = [w.value for w in cmd.words if w.literal]
        asked = self.model.judge(self.ctx, self.earlier(cmd), rel, unknown, verdict, words)
        return asked or verdict

    def leave(self, cmds):
        for c in cmds:
            named = set()
            for eff in self.effects.get(id(c), ()):
                self.done.add_effects(eff, c.text)
                named.update(p for w in eff.writes for p in w.paths)
            extra = [p for p in self.own.get(id(c), ()) if p not in named]
            self.done.add_paths(extra, "its writes as the validator's check found them",
                                c.text)

