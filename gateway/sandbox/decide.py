"""The PreToolUse hook's decisions that depend on the client's Bash sandbox (hook path).

Where the OS stops an effect, the gateway stops asking for it; where it does not, the gateway
keeps deciding (docs/security.md, "The decision matrix").

* `exposure()`  a command whose reads cannot be known (GW840: an unknown program, code on the
  command line, a tree too big to walk) asks today because it may read a secret. When the
  call runs sandboxed, the effective denyRead holds every secret path the rules give, and the
  project holds no secret the sandbox cannot hide (gateway.sandbox.residual: git history,
  git configuration, uncovered names, archives), the OS refuses those reads: no ask, and the
  client's own flow decides, the user's `permissions.allow` rules included. A certain read of
  a secret (gateway.guards.reads.CERTAIN: by name, by content, git's configuration) and a file
  whose content could not be checked (OWN) keep their own asks: denyRead hides names.
* `auto_allow()`  with `autoAllowBashIfSandboxed`, the client runs every sandboxed call the
  PreToolUse hook leaves alone with no dialog and no PermissionRequest, in every mode but
  plan on the default model (measured: `rm -rf src` in default mode deleted src/). The OS
  stops nothing inside the project, so the hook asks itself for what the user would have
  reviewed: in every mode what removes files, rewrites the working tree, changes the
  repository, publishes, or runs a program the gateway does not know (GW862); in default and
  dontAsk mode (and plan) any other edit too (GW861); in acceptEdits and auto an edit runs,
  as it would there without the sandbox. A call the validator allows, or that a `permissions.allow` rule of the user names,
  runs as it would without the sandbox.

Without the sandbox (off, unavailable, or the call leaves it) both return the decisions of
today. Standard library only; the posture is read from the settings the hook already parsed.
"""

import os

from gateway.decision import ALLOW

#: Modes in which an edit inside the project runs without a dialog anyway (the client's own).
EDIT_MODES = frozenset(("acceptEdits", "auto"))


class Floor:
    """The sandbox as one Bash call meets it. Everything is computed when first needed."""

    def __init__(self, req, settings, command):
        self.req = req
        self.settings = settings
        self.command = command
        self._posture = None
        self._sandboxed = None

    @property
    def posture(self):
        if self._posture is None:
            from gateway.sandbox import posture

            self._posture = posture.from_settings(self.settings, self.req.project, self.req.env)
        return self._posture

    def sandboxed(self) -> bool:
        if self._sandboxed is None:
            if not self.settings.sandbox:  # no settings file mentions the sandbox: fast path
                self._sandboxed = False
            else:
                self._sandboxed = self.posture.runs_sandboxed(
                    self.command, self.req.input_dict(), self.req.env)
        return self._sandboxed

    def why_not(self) -> str:
        if not self.settings.sandbox:
            return "the sandbox is not enabled"
        return self.posture.why_not(self.command, self.req.input_dict(), self.req.env)

    # --- reads ------------------------------------------------------------------------

    def unhidden(self) -> list:
        """Why the sandbox does not hide every secret of this project ([]: it does)."""
        from gateway.sandbox import residual

        missing = self.posture.hides_secrets(self.req.policy, self.req.env)
        if missing:
            return [f"sandbox.filesystem.denyRead lacks {len(missing)} secret path(s) of the "
                    f"rules (e.g. {missing[0]}); run gateway install"]
        return residual.find(self.req.policy, self.req.project, self.req.env)

    def exposure(self, exposure):
        """The ask for a command the exposure judgement did not clear, or None when the
        sandbox stops what it could read."""
        from gateway.guards import reads

        req = self.req
        # a certain read of a secret (by name, by content, from git's configuration) and a
        # file whose content could not be checked keep their own asks: the sandbox hides
        # names, not contents
        if exposure.code in reads.CERTAIN or exposure.code in reads.OWN:
            return reads.bash_exposure(req, exposure)
        if not self.sandboxed():
            req.step("guard:sandbox", "info", "", "no OS floor for this call: "
                     + self.why_not())
            return reads.bash_exposure(req, exposure)
        unhidden = self.unhidden()
        if unhidden:
            return req.ask("guard:reads", "GW840", "what the command reads cannot be known, "
                           "and the sandbox does not hide every secret: " + unhidden[0]
                           + f" ({exposure.code}: {exposure.message})", rule=exposure.rule)
        named = self.named_by_content(exposure)
        if named is not None:
            return named
        tree = self.tree_by_content(exposure)
        if tree is not None:
            return tree
        req.step("guard:sandbox", "pass", "GW860", "the call runs in the sandbox, which hides "
                 "every secret of the rules: what it reads is left to the OS "
                 f"({exposure.code}: {exposure.message})")
        return None

    def named_by_content(self, exposure):
        """The ask for a file the command names whose content is a credential (GW510) or
        could not be checked (GW511): the sandbox hides by name only (gateway.sandbox.named);
        None when every one is clean."""
        from gateway.sandbox.named import MAX_WALK, TooMany, named_files
        from gateway.secrets import content, filecheck

        req = self.req
        try:
            files = named_files(self.command, req.cwd)
        except TooMany as exc:
            return req.ask("guard:reads", "GW840", "what the command reads cannot be known, "
                           f"and {str(exc)!r} holds more than {MAX_WALK} files, too many to "
                           "check for credentials the sandbox does not hide (it hides by "
                           f"name, not by content) ({exposure.code}: {exposure.message})",
                           rule=exposure.rule)
        if files is None:
            return req.ask("guard:reads", "GW840", "what the command reads cannot be known, "
                           "and which files it names could not be parsed to check their "
                           f"contents ({exposure.code}: {exposure.message})",
                           rule=exposure.rule)
        from gateway.paths import is_secret

        # a secret by name is hidden by the OS (denyRead, every name of the rules: unhidden()
        # proved it): only what it cannot hide is judged here
        files = [f for f in files if not is_secret((f,), req.policy)]
        found = filecheck.check(files, req.policy, req.env)
        if found is None:
            return None
        if found.kind == content.SECRET:
            return req.ask("guard:reads", "GW510", f"the command reads {found.path!r}, which "
                           f"holds a credential: {found.detail} (the sandbox hides secrets by "
                           f"name, not by content). {content.HINT}", rule="secrets:content")
        return req.ask("guard:reads", "GW511", f"{found.path!r} could not be checked for "
                       f"credentials: {found.detail}", rule="secrets:content")

    def tree_by_content(self, exposure):
        """The ask for a call whose reads cannot be known when the project holds a file
        whose content is a credential (GW510) or could not be checked (GW511): its read set
        is every file the OS lets it read, and the sandbox hides by name only (`find -exec
        cat {} +`, `cat $(git ls-files)`, `ls | while read f; do cat "$f"; done` print
        config/settings.ini holding `aws_secret_access_key = ...`). None when none does."""
        from gateway.sandbox.named import MAX_TREE, TooMany, tree_files
        from gateway.secrets import content, filecheck

        req = self.req
        if content.settings(req.policy) is None:
            return None
        tops = [req.project]
        cwd = os.path.realpath(req.cwd or req.project)
        proj = os.path.realpath(req.project)
        if not (cwd == proj or cwd.startswith(proj.rstrip("/") + "/")):
            tops.append(cwd)
        try:
            files = tree_files(tops, req.policy)
        except TooMany as exc:
            return req.ask("guard:reads", "GW840", "what the command reads cannot be known, "
                           f"and {str(exc)!r} holds more than {MAX_TREE} files, too many to "
                           "check for credentials the sandbox does not hide (it hides by "
                           f"name, not by content) ({exposure.code}: {exposure.message})",
                           rule=exposure.rule)
        found = filecheck.check(files, req.policy, req.env)
        if found is None:
            return None
        shown = os.path.relpath(found.path, proj) if found.path.startswith(proj + "/") \
            else found.path
        if found.kind == content.SECRET:
            return req.ask("guard:reads", "GW510", "what the command reads cannot be known, "
                           f"and {shown!r} holds a credential: {found.detail}; the sandbox "
                           "hides secrets by name, not by content, so the command may print "
                           f"it ({exposure.code}: {exposure.message})", rule="secrets:content")
        return req.ask("guard:reads", "GW511", "what the command reads cannot be known, and "
                       f"{shown!r} could not be checked for credentials: {found.detail} "
                       f"({exposure.code}: {exposure.message})", rule="secrets:content")

    # --- auto-allow -------------------------------------------------------------------

    def auto_allow(self, core, effects):
        """The ask the hook must give because the sandbox's auto-allow would run the call
        with no dialog, or None."""
        from gateway.guards.reads import NO_EARLY_ALLOW

        req = self.req
        mode = req.permission_mode or "default"
        # a command the validator allows runs as it would without the sandbox; not in
        # dontAsk, where the gateway allows nothing (only the user's rules may)
        if (core.decision is ALLOW and mode not in NO_EARLY_ALLOW) \
                or mode == "bypassPermissions":
            return None
        if not self.settings.sandbox or not self.sandboxed() or not self.posture.auto_allow:
            return None
        if effects.readonly:
            req.step("guard:sandbox", "pass", "", "sandbox auto-allow runs it with no dialog; "
                     "it is read-only and the OS hides the secrets")
            return None
        if self.os_stops_every_write(effects):
            req.step("guard:sandbox", "pass", "", "sandbox auto-allow runs it with no dialog; "
                     "every write it makes is outside the project or write-protected, which "
                     "the OS refuses")
            return None
        rule = self.user_allows()
        if rule and mode != "plan":
            req.step("guard:sandbox", "pass", "", f"your permissions.allow rule {rule} runs it "
                     "with no dialog, sandboxed or not")
            return None
        why = "; ".join(effects.reasons()[:2])
        harm = destructive(effects)
        if harm:
            return req.ask("guard:sandbox", "GW862", "sandbox auto-allow would run it with no "
                           f"dialog, and {harm} ({why}); the sandbox does not stop that inside "
                           "the project", rule="sandbox:autoAllowBashIfSandboxed")
        if mode in EDIT_MODES:
            req.step("guard:sandbox", "pass", "", f"{mode} mode: an edit in the project, "
                     "which runs without a dialog in this mode anyway")
            return None
        return req.ask("guard:sandbox", "GW861", f"sandbox auto-allow would run it with no "
                       f"dialog in {mode} mode, and it changes files ({why}); you review "
                       "those in this mode, so the gateway asks",
                       rule="sandbox:autoAllowBashIfSandboxed")

    def os_stops_every_write(self, effects) -> bool:
        """The command only writes files (no other effect) and the OS refuses every one:
        outside the project and the writable places, or in sandbox.filesystem.denyWrite."""
        if (effects.unknown or effects.git or effects.commit_push or effects.commit_push_maybe
                or effects.gateway_ops or effects.surface_ops or effects.unresolved
                or effects.agents or effects.worktree or not effects.writes):
            return False
        pos = self.posture
        project = self.req.project
        for w in effects.writes:
            if not w.paths:
                return False
            for p in w.paths:
                if not stopped(p, pos, project):
                    return False
        return True

    def user_allows(self) -> str:
        """The user's permissions.allow rule by which the client runs this whole command
        itself, or "" (gateway.client.allow_rule: one simple command, named as written)."""
        if not getattr(self.settings, "allow", None):
            return ""
        from gateway import client

        return client.allow_rule(self.settings, self.command) or ""


def _under(p, d) -> bool:
    return p == d or p.startswith(d.rstrip("/") + "/")


def stopped(path, pos, project) -> bool:
    """Does the sandbox refuse a write of `path` (absolute)? The OS sees where the write
    really lands (links followed): inside the project it refuses only
    sandbox.filesystem.denyWrite; outside, everything but allowWrite and the client's
    temporary directory (/tmp/claude-<uid>)."""
    from gateway.paths import real

    form = real(path)
    if any(_under(form, d) or _under(form, real(d)) for d in pos.paths["denyWrite"]):
        return True
    if _under(form, real(project)):
        return False
    if any(_under(form, d) or _under(form, real(d)) for d in pos.paths["allowWrite"]):
        return False
    return not form.startswith("/tmp/claude")


def destructive(effects) -> str:
    """What in `effects` the sandbox does not stop and acceptEdits does not mean: removals,
    whole trees, working-tree rewrites, repository changes, publishing, unknown programs."""
    from gateway.effects import files

    for w in effects.writes:
        if files.removal(w.via) or w.tree:
            return f"it removes files ({w.via} {w.target!r})"
    if effects.worktree:
        return f"it rewrites the working tree ({effects.worktree[0]})"
    if effects.commit_push or effects.commit_push_maybe:
        what = (effects.commit_push or effects.commit_push_maybe)[0]
        return f"it commits or publishes ({what})"
    if effects.git:
        return f"it changes the repository ({effects.git[0]})"
    if effects.unknown or effects.unresolved or effects.gateway_ops or effects.surface_ops \
            or effects.agents:
        what = (effects.unknown or effects.unresolved or effects.gateway_ops
                or effects.surface_ops or effects.agents)[0]
        return f"what it changes cannot be known ({what})"
    return ""
