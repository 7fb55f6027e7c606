"""Hook adapters: the same decision core behind another agent's hook JSON.

One module per agent. Each has AGENT (its name on the command line), EVENTS (the agent's
hook events it answers), decide(raw, env) -> (verdict, payload), render(verdict, payload)
-> the stdout text, and settings(prefix) -> the agent's configuration that registers it.
`gateway adapter AGENT` runs one (reads stdin, prints one JSON object, exits 0).

Implemented: gemini (Gemini CLI's BeforeTool hook, whose contract mirrors Claude Code's).
Future work (docs/adapters.md): Cursor (beforeShellExecution), GitHub Copilot CLI
(preToolUse), OpenAI Codex CLI hooks.
"""

import os
import sys
import time

AGENTS = ("gemini",)


def module_for(agent: str):
    if agent not in AGENTS:
        return None
    name = "gateway.adapters." + agent.replace("-", "_")
    __import__(name)
    return sys.modules[name]


def run(agent: str, stdin=None, stdout=None, env=None) -> int:
    """Read the agent's hook JSON, decide, print the agent's answer. Always exit 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    env = os.environ if env is None else env
    start = time.perf_counter()
    try:
        raw = stdin.read()
    except Exception:
        raw = b""
    module = module_for(agent)
    if module is None:
        sys.stderr.write(f"gateway: unknown agent {agent!r}; known: {', '.join(AGENTS)}\n")
        stdout.write("{}\n")
        return 0
    try:
        verdict, payload = module.decide(raw, env)
        text = module.render(verdict, payload)
        try:
            from gateway import audit
            audit.record(verdict, event=f"{agent}:{module.event_of(payload)}", payload=payload,
                         latency_ms=round((time.perf_counter() - start) * 1000, 2), env=env)
        except Exception:
            pass
    except Exception as exc:  # never allow on an error
        sys.stderr.write(f"gateway: internal error in the {agent} adapter: {exc}\n")
        text = module.NO_DECISION
    stdout.write(text + "\n")
    stdout.flush()
    return 0
