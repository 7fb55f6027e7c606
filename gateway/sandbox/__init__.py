"""Claude Code's Bash sandbox as the gateway's floor (issue 23, docs/sandbox.md).

Claude Code runs Bash commands in bubblewrap (Linux) when its settings say
`"sandbox": {"enabled": true}`; what a sandboxed command may read and write comes from
`sandbox.filesystem`. The gateway configures it from its own rules and decides knowing it:

* `spec`      the sandbox block `gateway install` writes, derived from the policy (secrets,
              autorun, the gateway's own files) and rules/sandbox.yaml (extra run-later files,
              toolchain caches). Install and doctor only.
* `settings`  adding that block to a settings file and taking exactly it out again.
* `posture`   the client's effective sandbox settings, read from every settings layer: is a
              Bash call sandboxed, does the sandbox hide the secrets. Standard library only
              (the PreToolUse hook reads it).
* `decide`    the PreToolUse hook's sandbox-aware steps (hook path).
* `residual`  secrets the sandbox cannot hide (git history, a repository's credentials,
              archives): while there are any, unknown programs still ask (hook path).
* `selftest`  `gateway doctor`'s proof: a command really run in the sandbox, judged by effect.
"""
