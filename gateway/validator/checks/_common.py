"""What every named check shares: its phase, the two ways it refuses, and the <rev>:<path>
secret check that git checks and phase 7C both use."""

from gateway.paths import is_secret, lexical

PHASE = "7C"


def _unsafe(ctx, what, why):
    return ctx.ask(PHASE, "GW704", f"{what}: {why}")


def _program(ctx, what, why):
    return ctx.ask(PHASE, "GW710", f"{what}: {why}")


def git_excludes(word) -> bool:
    """A git pathspec that excludes (`:!x`, `:^x`, `:(exclude)x`, `:(top,exclude)x`): it
    names what is not read."""
    if word.startswith((":!", ":^")):
        return True
    if word.startswith(":(") and ")" in word:
        return "exclude" in word[2:word.index(")")].split(",")
    return False


def revision_secret(ctx, label, words, cwd, rule=None):
    """git names a file in a commit or the index as <rev>:<path>, :<n>:<path> or :<path>
    (and git log -L as <start>,<end>:<path> or :<func>:<path>): the path after any colon
    may be a secret (HEAD:.envrc, :credentials). An excluding pathspec is not one. An ask
    verdict, or None."""
    for word in words:
        if git_excludes(word):
            continue
        start = word.find(":")
        while start != -1:
            rest = word[start + 1:]
            if rest:
                secret = is_secret((lexical(rest, cwd),), ctx.policy)
                if secret:
                    return ctx.ask("5", "GW503", f"{label} {word!r} names the secret file "
                                   f"{rest!r} ({secret})", rule=f"secrets:{secret}")
            start = word.find(":", start + 1)
    return None


#: git subcommands that change neither refs, the index nor the working tree.
_GIT_READS = frozenset(("status", "log", "show", "diff", "diff-files", "diff-index",
                        "diff-tree", "grep", "blame", "annotate", "ls-files", "ls-tree",
                        "rev-parse", "rev-list", "cat-file", "show-ref", "for-each-ref",
                        "describe", "merge-base", "name-rev", "count-objects", "check-ignore",
                        "check-attr", "var", "version", "help", "shortlog", "whatchanged"))
_GIT_READ_SUBS = {"stash": ("list", "show"), "reflog": ("show",), "worktree": ("list",),
                  "notes": ("list", "show"), "submodule": ("status",),
                  "remote": ("show", "get-url", "-v", "--verbose")}
#: `git branch` and `git tag` only list with no operand and only these options (a name
#: creates, renames or deletes a ref).
_GIT_LISTS = {"branch": frozenset(("-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose",
                                   "--list", "-l", "--show-current", "--no-color", "--color")),
              "tag": frozenset(("-l", "--list", "-n", "--no-color", "--color"))}


def _lists(args, listing) -> bool:
    return all(a in listing for a in args)


_GIT_GLOBAL_VALUES = frozenset(("-C", "-c", "--git-dir", "--work-tree", "--namespace",
                                "--config-env", "--super-prefix"))


def changes_git_state(words) -> bool:
    """Might this simple command (its words) change a repository's refs, index or working
    tree? Any `git` word with a subcommand other than a pure read counts; so does a `git`
    whose subcommand cannot be found. Later segments of the same command line are then judged
    on a state git has not reached yet (checks/git.py asks, GW745)."""
    for k, w in enumerate(words):
        if w != "git" and not w.endswith("/git"):
            continue
        rest = words[k + 1:]
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 2 if rest[i] in _GIT_GLOBAL_VALUES else 1
        if i >= len(rest):
            continue  # git, git --version
        sub, args = rest[i], rest[i + 1:]
        if sub in _GIT_READS:
            continue
        if sub in _GIT_READ_SUBS and (not args and sub in ("reflog", "remote", "notes",
                                                            "submodule")
                                      or args[:1] and args[0] in _GIT_READ_SUBS[sub]):
            continue
        if sub == "config" and _config_reads(args):
            continue
        if sub in _GIT_LISTS and _lists(args, _GIT_LISTS[sub]):
            continue
        return True
    return False


def _config_reads(args) -> bool:
    if args[:1] in (["get"], ["list"]):
        return True
    opts = [a for a in args if a.startswith("-")]
    operands = [a for a in args if not a.startswith("-")]
    if any(o.split("=", 1)[0] in ("--get", "--get-all", "--get-regexp", "--list", "-l")
           for o in opts):
        return True
    return len(operands) == 1 and not any(o.split("=", 1)[0] in (
        "--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
        "--remove-section", "--edit", "-e", "--file", "-f", "--blob") for o in opts)
