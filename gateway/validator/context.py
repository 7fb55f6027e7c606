"""What the phases share while one command is validated."""

from gateway.decision import ALLOW, ASK, DENY, Step, Verdict
from gateway.paths import Roots


class Context:
    """One validation: the input, the policy, the parse once made, and the trace so far."""

    def __init__(self, command: str, cwd: str, project: str, policy, tool_name="Bash",
                 settings=None, raw_input=None, exposure=False, home=None, mode=None,
                 env=None):
        self.command = command  # as received
        self.text = command  # after phase 1.5's suffix stripping
        self.cwd = cwd
        self.roots = Roots(project, policy.allowed_dirs)
        self.project = self.roots.project
        self.policy = policy
        self.tool_name = tool_name
        self.settings = settings  # gateway.settings.SettingsRules or None
        self.raw_input = raw_input  # the raw hook payload text, if any
        self.trace = []
        self.script = None  # gateway.shell.parse.Script once parsed
        self.parse_error = None  # ShellParseError when bashlex failed
        # the last command of the line when it changes only the shell (FOO=bar, export,
        # source: gateway.shell.shellstate), set by phase 2
        self.shell_last = None
        # the commands whose output the segment being judged reads through `|`, set by the
        # pipeline (gateway.validator.xargs)
        self.pipe_feeders = None
        # what the checks proved writes nothing, for plan mode (gateway.validator.modes): the
        # commands (cwd, argv) judged with that proof, and ("xargs", cwd, argv) for a command
        # xargs runs with names it reproduced (operands, never options). Facts about the
        # command line and the files, true whatever the verdict they were found in
        self.readonly_facts = set()
        # set by a check (note_readonly) while judge_argv judges one command line
        self.proves_readonly = False
        # exposure: the question is "may this command read a secret?", not "may it run
        # unasked?" (the PreToolUse hook, gateway.validator.exposure). Concerns that are not
        # reads of secrets (paths outside the project, writes, output redirections, a tilde
        # whose expansion is known) do not ask; everything else is judged as usual.
        self.exposure = exposure
        self.home = home  # $HOME for tilde expansion in exposure mode (None: not expanded)
        self.mode = mode  # the payload's permission_mode (gateway.validator.modes)
        # the environment the command runs in (the hook's): tools read configuration from it
        # (GOFLAGS, PYTEST_ADDOPTS, npm_config_*, CARGO_*); None is os.environ
        if env is None:
            import os

            env = os.environ
        self.env = env
        # is_protected counts the gateway's own files (gateway.ownpaths)
        from gateway.ownpaths import own_paths

        self.roots.env = env
        self.roots.own_paths = own_paths

    def note_readonly(self) -> None:
        """The command line being judged writes nothing (a check's proof: tsc --noEmit with
        no build info, unzip -l, a version query); judge_argv records it when it allows."""
        self.proves_readonly = True

    def step(self, phase: str, status: str, code: str = "", message: str = "") -> None:
        self.trace.append(Step(phase, status, code, message))

    def ask(self, phase: str, code: str, message: str, rule: str = "") -> Verdict:
        self.step(phase, "ask", code, message)
        return Verdict(ASK, phase, code, rule, message)

    def deny(self, phase: str, code: str, message: str, rule: str = "") -> Verdict:
        self.step(phase, "deny", code, message)
        return Verdict(DENY, phase, code, rule, message)

    def allow(self, phase: str, code: str, message: str, rule: str = "") -> Verdict:
        self.step(phase, "allow", code, message)
        return Verdict(ALLOW, phase, code, rule, message)
