"""`gateway hook EVENT`: run as a Claude Code hook. The real work (and the fast path that
skips this module entirely) is gateway.hooks.runner."""

import sys

import click

from gateway.hooks.runner import events


@click.command("hook")
@click.argument("event", type=click.Choice(events()))
def command(event):
    """Run as a Claude Code hook: read the event's JSON on stdin, print the decision JSON (or
    nothing), always exit 0. `gateway install` registers these.

    \b
    EVENT is the hook to run:
      permission-request   PermissionRequest (Bash): allow, deny, or nothing (the dialog stays)
      pre-tool-use         PreToolUse (every tool): the guards; deny, or nothing
      session-start        SessionStart: what the Lead must do next (compact|resume); memory
                           files that import a secret (every start)
      pre-compact          PreCompact: save the spec workflow position
      task-completed       TaskCompleted: team timeline and progress signals
      teammate-idle        TeammateIdle: team timeline
      user-prompt-submit   UserPromptSubmit: hand the Lead its progress signals
      post-tool-use        PostToolUse (Write|Edit|MultiEdit): register a role from its
                           marker Write; record a checked spec task's done step as due

    \b
    Examples:
      echo '{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/repo"}' \\
        | gateway hook permission-request
      echo '{"tool_name":"Write","tool_input":{"file_path":"/repo/.env"},"cwd":"/repo"}' \\
        | gateway hook pre-tool-use
    """
    from gateway.hooks.runner import run

    sys.exit(run(event))
