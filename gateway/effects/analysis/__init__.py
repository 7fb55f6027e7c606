"""What a Bash command writes: one analyzer over the parse, for every guard that asks.

`analyze(command, cwd)` parses the command with gateway.shell.parse and classifies every
simple command anywhere in it (in lists, pipelines, subshells, substitutions, `bash -c '...'`
strings, behind wrappers such as `command`, `env`, `nice`, `timeout`, `xargs`, behind the
runners `exec`, `eval`, `sudo`, `doas`, `nohup`, `watch` (never read-only themselves), and
behind absolute paths like /usr/bin/git). A write target spelled `~/...` or `$HOME/...` is
the home directory. The result, `Effects`, says:

* `writes`   the file writes it can name: redirections (`>`, `>>`, `>|`, `&>`, `<>`, `>&f`),
             `tee`, `sed -i`, `awk -i inplace`, `perl -i`/`ruby -i`, `dd of=`, `sort -o`,
             `uniq in out`, `xxd in out`, `find -delete`/`-fprint`, `git diff --output=`,
             `git config` (.git/config), `time -o`, and rm/rmdir/unlink/shred/truncate/touch/
             mkdir/mkfifo/mknod/chmod/chown/chgrp/chattr/setfacl/cp/mv/install/ln targets. Each
             carries the absolute candidate paths (one per directory the command may run in;
             `cd`/`pushd` are followed) and whether a whole tree may be removed or changed.
* `unknown`  why some part could not be classified as read-only: an unknown program, an
             interpreter (inline code or a script), a computed command name or write target,
             an assignment that changes the environment, a parse failure... FAIL CLOSED: every
             guard that needs "read-only" counts these as writing.
* `git`      mutating git invocations (anything but the known read-only subcommands and forms),
             `commit_push` the ones that create commits or publish them (commit, commit-tree,
             merge, pull, rebase, cherry-pick, revert, am, update-ref, push, send-pack...), and
             `commit_push_maybe` the forms that may do so unseen: an unknown subcommand (an
             alias), `git -c ...`, `--exec-path=`, `submodule foreach`, `bisect run`,
             `difftool -x`, a computed command name with a commit/push word (`$GIT commit`),
             code it cannot see (a shell reading its input, `sh -c "$X"`, `eval "$X"`), and an
             unparseable command or interpreter code that names git and commit/push.
* `gateway_ops` the gateway's own state changes (`gateway breezing phase X`, `gateway state
             clean`, `gateway hook ...`, the workflow steps `gateway breezing start|abort|
             verify|finish`, `gateway spec start|done`, `gateway resume --yes`; their views --
             `breezing next`, `crew plan|validate-result|status`, `orch`, `spec status` --
             are read-only), and `surface_ops` commands that rewrite the agent's settings
             (`gateway install|uninstall`).

`Effects.readonly` is true only when none of these apply. What it refuses (never read-only):
any program the rules do not describe, an option a catalogue entry marks unsafe or does not
list in its allowlist, every interpreter except a bare --version,
`sh -c` with a computed string, here-documents fed to an interpreter or shell, `source`,
`eval`, `exec`, functions, `export`/`declare`, assignments, `sudo` and friends, `nohup`,
`watch`, `flock`, `strace`, tar/zip/wget/make/npm and every build tool (curl: only GET/HEAD
with no data to the loopback, gateway.tools.curl, reads), git subcommands
outside the read-only list, options that make a reader write or run programs (`sort -o`,
`sort --compress-program`, `rg --pre`, `find -exec` of a writer, `date -s`, `file -C`,
`git diff --ext-diff`, `git grep -O`...), and anything it cannot parse.

What programs do is data, not code: `analyze(command, cwd, policy=...)` reads the policy the
validator uses (rules/catalogue.yaml entries' `effects`, `output_flags`, `tree_flags`;
rules/default.yaml's wrappers, interpreters, builtins and system directories; rules/
effects.yaml for what the validator never allows) through `policy.effects`
(gateway.policy.effects.Model). Without a policy it loads the built-in and user rules; when
they cannot be loaded nothing is known (every program unknown). Stdlib only (hook path).

The package:

* `_core`     `analyze`, redirections, brace and glob expansion, the dispatch of each simple
              command (`_argv`, routed by the rules' effects model)
* `_base`     what the handlers share with the core, below both: `Effects`, `Write`,
              recorded writes, the `flags` derivation of catalogue entries, and `DISPATCH`
              (the handlers reach `analyze` and `_argv` through it, never importing `_core`)
* `_cd`       cd/pushd/popd followed, and `~` in a word
* `git`       git: global options, read-only subcommands and forms, commit/push, `git config`,
              working-tree rewrites (the names from the rules)
* `programs`  the handlers an entry's `effects` names: cp/mv/ln/install, dd, sed, awk, find,
              xxd, uniq, and `gateway`
* `wrappers`  wrappers, runners, shells and interpreters

The handler modules are imported when a command first needs one (a `git status` loads `git`
only), so the PreToolUse hook loads no more than the commands it sees.
"""

from gateway.effects.analysis._core import (
    MAX_COMMAND,
    Effects,
    Write,
    analyze,
    default_model,
    gateway_paths,
    trusted_program,
)

__all__ = ["MAX_COMMAND", "Effects", "Write", "analyze", "default_model", "gateway_paths",
           "trusted_program"]
