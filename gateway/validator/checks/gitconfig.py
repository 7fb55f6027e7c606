"""git config, git remote and git var: reads only, and only when what they print holds no
credential (GW742).

A clone keeps the URL it was given (`https://user:token@host/x.git`) in .git/config; CI
checkouts persist an Authorization header as http.<url>.extraHeader; an insteadOf base can
carry a token that every matching URL is rewritten to. `git config --list`, `git remote -v`
and `git var -l` print them as surely as `cat .git/config`, which asks. The entries a read
prints are asked of git (`git config --list -z` with the same scope options) and each one is
checked (`credential`).
"""

import re

from gateway.shell import argv as argvmod
from gateway.tools import gitquery as gq
from gateway.tools.gitconfig import credential
from gateway.validator.checks._common import _unsafe, revision_secret
from gateway.validator.checks.git import PHASE, _opts_ok, _Repo, _unknown, stale

# --- configuration: reads, and the credentials they print -------------------------------------

_CONFIG_READ = frozenset(("--get", "--get-all", "--get-regexp", "--list", "-l",
                          "--show-origin", "--show-scope", "--name-only", "--null", "-z",
                          "--global", "--system", "--local", "--worktree", "--includes",
                          "--no-includes", "--type", "--default", "--bool", "--int", "--path",
                          "--bool-or-int", "--bool-or-str", "--expiry-date", "--get-urlmatch",
                          "--fixed-value", "--no-type"))
_CONFIG_SCOPE = ("--global", "--system", "--local", "--worktree", "--includes", "--no-includes")
_CONFIG_WRITE_SUBCOMMANDS = frozenset(("set", "unset", "rename-section", "remove-section",
                                       "edit"))
_CONFIG_VALUE = frozenset(("--type", "--default", "--file", "-f", "--blob"))


def _first_operand(words, value_flags) -> int:
    """Index of the first word that is not an option (or an option's value)."""
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        i += 2 if w in value_flags else 1
    return i


def _key_parts(key):
    """(section lower, subsection as written, name lower) of a configuration key."""
    first, _, rest = key.partition(".")
    sub, _, name = rest.rpartition(".")
    return first.lower(), sub, name.lower()


def _config_credentials(ctx, what, repo, entries, keys_only=False):
    verdict = stale(ctx, what)
    if verdict:
        return verdict
    if entries is None:
        return _unknown(ctx, what, "git could not list the configuration it prints")
    for key, value in entries:
        why = credential(key, "" if keys_only else value)
        if why:
            return ctx.ask(PHASE, "GW742", f"{what} prints a credential from git's "
                           f"configuration ({why}). Read it yourself if you mean to; to keep "
                           "the token out of the configuration, use a credential helper",
                           rule="git:credential")
    return None


def _selected(entries, mode, pattern):
    """The entries a read prints: all (--list), those of one key (--get), or matching a
    regular expression (--get-regexp; an expression Python cannot read selects all)."""
    if mode == "list" or entries is None:
        return entries
    if mode == "regexp":
        try:
            rx = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return entries
        return [(k, v) for k, v in entries if rx.search(k)]
    if mode == "urlmatch":
        section = pattern.split(".", 1)[0].lower()
        return [(k, v) for k, v in entries if k.split(".", 1)[0].lower() == section]
    want = _key_parts(pattern)
    return [(k, v) for k, v in entries if _key_parts(k) == want]


def git_config(ctx, spec, words, cwd):
    """Reads only (`git config user.name`, `--get`, `--list`, `get`, `list`), and only when
    nothing they print is a credential (GW742). Anything that sets, unsets or edits asks."""
    label = "git config"
    if words and words[0] in ("get", "list"):
        # git 2.46+ subcommands: read-only, but --file/--blob name what is read (an INI-style
        # credentials file)
        args = argvmod.parse(words[1:], frozenset(("--type", "--default", "--file", "-f",
                                                   "--blob", "--value", "--url")))
        blobs = args.values("--blob") + [a for a in args.attached if ":" in a]
        if any(":" not in b for b in args.values("--blob")):
            # an object id or a tag: any blob, a tracked secret among them
            return _unsafe(ctx, "git config --blob", "reads a blob named by id; name it as "
                           "<rev>:<path>"), [], []
        verdict = revision_secret(ctx, "git config", blobs, cwd)
        if verdict is not None:
            return verdict, [], []
        mode = "list" if words[0] == "list" else (
            "regexp" if args.has("--regexp", "--all") and args.has("--regexp") else "key")
        pattern = args.positionals[0] if args.positionals else ""
        if words[0] == "get" and not pattern:
            return _unsafe(ctx, "git config get", "names no key"), [], []
        verdict = _config_read_credentials(ctx, label, words[1:], args, mode, pattern, cwd)
        return verdict, args.values("--file", "-f") + args.attached, []
    if words and words[0] in _CONFIG_WRITE_SUBCOMMANDS:
        # git 2.46+ subcommands; `git config edit` opens .git/config in the editor
        return _unsafe(ctx, f"git config {words[0]}", "changes the configuration"), [], []
    first = _first_operand(words, _CONFIG_VALUE)
    if any(w.startswith("-") for w in words[first:]):
        # git config stops at the key: `git config core.fsmonitor CMD -l` sets the key (the
        # -l is a value pattern), it does not list
        return _unsafe(ctx, "git config " + " ".join(words), "an option after the key is "
                       "a value: this sets the key"), [], []
    args = argvmod.parse(words, _CONFIG_VALUE)
    for opt in args.options:
        if opt.name in ("--file", "-f", "--blob"):
            continue
        if opt.name not in _CONFIG_READ and not argvmod.abbreviates_only(
                opt.name, spec.options, _CONFIG_READ | {"--file", "--blob"}):
            return _unsafe(ctx, f"git config {opt.name}", "changes the configuration"), [], []
    if any(":" not in b for b in args.values("--blob")):
        return _unsafe(ctx, "git config --blob", "reads a blob named by id; name it as "
                       "<rev>:<path>"), [], []
    verdict = revision_secret(ctx, "git config", args.values("--blob"), cwd)
    if verdict is not None:
        return verdict, [], []
    listing = args.has("--list", "-l")
    reading = listing or args.has("--get", "--get-all", "--get-regexp", "--get-urlmatch")
    limit = 0 if listing else (3 if args.has("--get-urlmatch") else (2 if reading else 1))
    if len(args.positionals) > limit or (not listing and not args.positionals):
        return _unsafe(ctx, "git config " + " ".join(words), "sets a value (git config can "
                       "define aliases and hooks that run commands)"), [], []
    if listing:
        mode, pattern = "list", ""
    elif args.has("--get-regexp"):
        mode, pattern = "regexp", args.positionals[0]
    elif args.has("--get-urlmatch"):
        mode, pattern = "urlmatch", args.positionals[0]
    else:
        mode, pattern = "key", args.positionals[0]
    verdict = _config_read_credentials(ctx, label, words, args, mode, pattern, cwd)
    return verdict, args.values("--file", "-f"), []


def _config_read_credentials(ctx, label, words, args, mode, pattern, cwd):
    repo = _Repo(ctx, cwd)
    scope = [w for w in words if w in _CONFIG_SCOPE]
    for name in ("--file", "-f", "--blob"):
        for v in args.values(name):
            scope += ["--blob" if name == "--blob" else "--file", v]
    if repo.git_dir is None and (args.values("--blob") or any(
            w in ("--local", "--worktree") for w in scope)):
        return None  # outside a repository git refuses
    entries = gq.config_entries(cwd, repo.git_dir or cwd, scope, repo.globals)
    keys_only = args.has("--name-only")
    return _config_credentials(ctx, f"{label} {' '.join(words)}".strip(), repo,
                               _selected(entries, mode, pattern), keys_only)


_URL_KEYS = re.compile(r"^(remote\.(.+)\.(url|pushurl)|url\..+\.(insteadof|pushinsteadof))$",
                       re.IGNORECASE)


def git_remote(ctx, spec, words, cwd):
    """`git remote [-v]`, `git remote show [-n] [<name>...]`, `git remote get-url [--push]
    [--all] <name>`: the URLs they print are checked for credentials (a token a clone kept in
    .git/config, an insteadOf base that carries one)."""
    label = "git remote"
    sub = spec.name.split(" ")[2] if spec.name.count(" ") >= 2 else ""
    args = argvmod.parse(words)
    safe = {"": frozenset(("-v", "--verbose", "--no-verbose")),
            "show": frozenset(("-n",)),
            "get-url": frozenset(("--push", "--all", "--no-push", "--no-all"))}[sub]
    verdict = _opts_ok(ctx, f"{label} {sub}".strip(), args, safe, spec)
    if verdict:
        return verdict, [], []
    if not sub and args.positionals:
        return _unsafe(ctx, f"{label} {args.positionals[0]}", "not a read"), [], []
    if not sub and not args.has("-v", "--verbose"):
        return None, [], []  # names only
    names = set(args.positionals)
    # a URL instead of a remote's name is contacted: judged as one (phase 5)
    urls = [p for p in args.positionals if "://" in p or ":" in p.split("/", 1)[0]]
    repo = _Repo(ctx, cwd)
    if repo.git_dir is None or urls:
        return None, urls, []
    entries = gq.config_entries(cwd, repo.git_dir, (), repo.globals)
    if entries is not None:
        entries = [(k, v) for k, v in entries if (m := _URL_KEYS.match(k)) and (
            not names or m.group(2) is None or m.group(2) in names)]
    what = f"{label} {sub} {' '.join(words)}".replace("  ", " ").strip()
    return _config_credentials(ctx, what, repo, entries), [], []


def git_var(ctx, spec, words, cwd):
    """`git var <name>` prints one of git's variables; `git var -l` also the whole
    configuration: checked like `git config --list`."""
    args = argvmod.parse(words)
    verdict = _opts_ok(ctx, "git var", args, frozenset(("-l",)), spec)
    if verdict:
        return verdict, [], []
    if not args.has("-l"):
        return None, [], []
    repo = _Repo(ctx, cwd)
    entries = gq.config_entries(cwd, repo.git_dir or cwd, (), repo.globals)
    return _config_credentials(ctx, "git var -l", repo, entries), [], []


