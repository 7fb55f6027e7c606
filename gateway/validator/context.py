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
