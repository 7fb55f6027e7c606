"""Phase 5 (recursive reads): a command that reads a whole tree reads every secret in it.

`grep -r KEY .` names no secret, yet prints the lines of `.env` and `.git/config`. For the
catalogue entries marked `recursive:` (grep, rg, diff, git grep), the directories the command will
descend into are walked, the way the command itself would walk them, and a secret inside
stops the allow (GW506). The walk is bounded (WALK_LIMIT entries); a bigger tree, a symlink
the command would follow, or a directory that cannot be listed is not proven clean and asks
(GW507). Phase 5 has already checked that every named path is inside the project.

What each kind means (the options are taken from the parse of the arguments):

* ``grep``  recursive only with -r, -R, --recursive, --dereference-recursive or
  -d/--directories recurse; no path means ".". -R follows symlinks; -r does not (symlinks
  met during the walk are skipped, as grep skips them). --include and --exclude are
  GNU grep's ordered rule: the last option whose glob matches a file's base name decides,
  and a file no option matches is read unless the first option is --include;
  --exclude-dir skips directories by base name.
* ``rg``    always recursive; no path means ".". Hidden files and directories are skipped
  unless --hidden, -. or -uu; -L/--follow follows symlinks. .gitignore is *not* honoured
  (a secret that git ignores is still there to read with --no-ignore). -g/--glob/--iglob
  are ripgrep's overrides: the last glob that matches a base name decides (a `!glob`
  excludes), a file no glob matches is read only when no glob is a whitelist, and a glob
  that matches a hidden file overrides the hidden rule (`rg -g '*.production' KEY` reads
  config/.env.production).
* Filters the model does not reproduce exactly (a glob with /, **, {...}, [...] or a
  backslash; --type) are dropped: the walk reads every file it can reach.
* ``diff``  recursive with -r/--recursive; diff follows symlinks.
* ``git-diff``  with --no-index it compares two trees like diff -r (symlinks are not
  followed).
* ``git-grep``  with --no-index or --untracked it reads the working tree like grep -r; by
  default it reads tracked files only and is not walked.
* ``tree``  cp: with -r, -R, -a (or --recursive, --archive) every operand is walked; -L
  follows symlinks.
"""

import os
from fnmatch import fnmatchcase

from gateway.paths import is_secret, resolve
from gateway.validator import argv as argvmod

PHASE = "5"
WALK_LIMIT = 20000  # entries per command; more is "not proven clean", never "clean"

class Walk:
    """What to walk and how: the start directories (as written) and the walker's rules."""

    __slots__ = ("paths", "follow", "hidden", "filters", "default_include", "exclude_dir",
                 "outside_git_only")

    def __init__(self, paths, follow=False, hidden=True, filters=(), default_include=True,
                 exclude_dir=(), outside_git_only=False, include=()):
        # outside_git_only: the command reads the trees only where no git work tree holds
        # the working directory (git diff without --no-index)
        self.outside_git_only = outside_git_only
        self.paths = list(paths)
        self.follow = follow
        self.hidden = hidden
        # ordered (include?, glob, casefold): the last one matching a base name decides;
        # no match: default_include (`include` is shorthand for plain whitelist globs)
        self.filters = list(filters) + [(True, g, False) for g in include]
        self.default_include = default_include and not include
        self.exclude_dir = list(exclude_dir)

    def selects(self, name):
        """(read?, decided by a filter?) for a file's base name."""
        hit = None
        for include, glob, fold in self.filters:
            if fnmatchcase(name.lower() if fold else name, glob.lower() if fold else glob):
                hit = include
        if hit is None:
            return self.default_include, False
        return hit, True


#: Glob syntax whose meaning differs between fnmatch and the tools (path globs, ripgrep's
#: ** and {a,b}, bracket negation with ^, escapes): a filter using it is dropped.
_UNMODELLED = ("/", "**", "{", "}", "[", "]", "\\")


def _modelled(glob):
    return bool(glob) and not any(t in glob for t in _UNMODELLED)


def plan(kind, args, positionals):
    """The Walk for a command of `kind` with parsed `args` (gateway.validator.argv.Args)
    and its path positionals, or None when the command does not descend into directories."""
    return _PLANS[kind](args, positionals)


def _long(opt, *names):
    return any(argvmod.long_matches(opt.name, n) for n in names)


_GREP_FILTERS = ("--include", "--exclude", "--exclude-dir")


def _filter_name(name):
    """The grep filter option `name` selects: exact first (getopt_long: --exclude is not an
    abbreviation of --exclude-dir), then an unambiguous abbreviation; else None, and the
    option filters nothing (ignoring a filter can only make the walk see more)."""
    if name in _GREP_FILTERS:
        return name
    hits = [n for n in _GREP_FILTERS if argvmod.long_matches(name, n)]
    return hits[0] if len(hits) == 1 else None


def _grep(args, paths):
    recursive = follow = False
    filters = []
    exclude_dir = []
    dropped = False
    for opt in args.options:
        if opt.name == "-r" or (opt.name.startswith("--") and _long(opt, "--recursive")):
            recursive = True
        elif opt.name == "-R" or (opt.name.startswith("--")
                                   and _long(opt, "--dereference-recursive")):
            recursive = follow = True
        elif opt.name == "-d" or (opt.name.startswith("--") and _long(opt, "--directories")):
            if opt.value is None or "recurse".startswith(opt.value) or opt.value == "":
                recursive = True
        elif opt.name.startswith("--") and _filter_name(opt.name):
            which = _filter_name(opt.name)
            glob = opt.value or ""
            if which == "--exclude-dir":
                if _modelled(glob):
                    exclude_dir.append(glob)
            elif _modelled(glob):
                filters.append((which == "--include", glob, False))
            else:
                dropped = True
    if not recursive:
        return None
    if dropped:
        filters = []
    default = not (filters and filters[0][0])
    return Walk(paths or ["."], follow=follow, filters=filters, default_include=default,
                exclude_dir=exclude_dir)


def _rg(args, paths):
    follow = hidden = False
    unrestricted = 0
    filters = []
    dropped = False
    for opt in args.options:
        name = opt.name
        if name == "-L" or (name.startswith("--") and _long(opt, "--follow")):
            follow = True
        elif name == "-." or (name.startswith("--") and _long(opt, "--hidden")):
            hidden = True
        elif name == "-u" or (name.startswith("--") and _long(opt, "--unrestricted")):
            unrestricted += 1
        elif name in ("-g", "--glob", "--iglob") or (name.startswith("--") and (
                _long(opt, "--glob") or _long(opt, "--iglob"))):
            glob = opt.value or ""
            fold = name != "-g" and _long(opt, "--iglob")
            negated = glob.startswith("!")
            body = glob[1:] if negated else glob
            if _modelled(body):
                filters.append((not negated, body, fold))
            else:
                dropped = True
    if dropped:
        # a glob the model cannot read may override anything, the hidden rule included
        filters, hidden = [], True
    default = not any(include for include, _, _ in filters)
    return Walk(paths or ["."], follow=follow, hidden=hidden or unrestricted >= 2,
                filters=filters, default_include=default)


def _diff(args, paths):
    # without -r, diff of two directories still reads every file at their top level (and
    # -N prints the ones on one side only): a directory operand is walked either way (the
    # whole tree: more than diff reads without -r, never less)
    # --from-file=DIR / --to-file=DIR are compared with every operand: read like them
    more = [o.value for o in args.options if o.value and o.name.startswith("--")
            and _long(o, "--from-file", "--to-file")]
    return Walk(list(paths) + more, follow=True)


def _git_diff(args, paths):
    # git diff --no-index compares two files or two whole trees, like diff -r (and prints
    # every file of a tree that is only on one side); it follows no symlinks. Outside a git
    # work tree, `git diff a b` is --no-index without the option.
    no_index = any(o.name.startswith("--") and _long(o, "--no-index") for o in args.options)
    return Walk(paths, outside_git_only=not no_index)


def _in_git_work_tree(cwd):
    """Is there a .git (directory or file) in `cwd` or above, as git looks for one?"""
    probe = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return True
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent


def _git_grep(args, paths):
    # Tracked files only by default (a tracked secret is in the history for anyone to read;
    # see docs/security.md). --no-index and --untracked read the working tree like grep -r.
    if not any(o.name.startswith("--") and _long(o, "--no-index", "--untracked")
               for o in args.options):
        return None
    return Walk(paths or ["."])


def _tree(args, paths):
    # cp -r/-R/-a copies whole trees: every file below a source is read (and copied under
    # its own name); -L/--dereference follows the symlinks it meets
    if not any(o.name in ("-r", "-R", "-a") or (o.name.startswith("--") and _long(
            o, "--recursive", "--archive")) for o in args.options):
        return None
    follow = any(o.name == "-L" or (o.name.startswith("--") and _long(o, "--dereference"))
                 for o in args.options)
    return Walk(paths, follow=follow)


_PLANS = {"grep": _grep, "rg": _rg, "diff": _diff, "git-grep": _git_grep,
          "git-diff": _git_diff, "tree": _tree}
KINDS = tuple(_PLANS)


def run(ctx, walk, cwd):
    """Walk every directory of `walk`; an ask verdict for a secret or an unproven tree,
    None when every file the command would read is clear."""
    budget = [WALK_LIMIT]
    if walk.outside_git_only and _in_git_work_tree(cwd):
        return None
    for start in walk.paths:
        # the commands follow a symlink named on the command line; phase 5 has checked
        # that it stays inside the project
        top = resolve(start, cwd, ctx.roots).real
        if not os.path.isdir(top):
            continue  # a file: phase 5 has judged it by name
        found = _walk(top, walk, ctx.policy, budget)
        if found is None:
            continue
        kind, path = found
        shown = _shown(path, cwd)
        if kind == "secret":
            secret = is_secret((path,), ctx.policy)
            return ctx.ask(PHASE, "GW506", f"{start!r} is read recursively and contains the "
                           f"secret {shown!r} ({secret})", rule=f"secrets:{secret}")
        reasons = {"limit": f"has more than {WALK_LIMIT} entries to check",
                   "symlink": f"has a symlink the command would follow ({shown!r})",
                   "unreadable": f"has a directory that cannot be listed ({shown!r})"}
        return ctx.ask(PHASE, "GW507", f"{start!r} is read recursively and {reasons[kind]}: "
                       "it cannot be proven free of secrets")
    return None


def _shown(path, cwd):
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _matches(name, patterns):
    return any(fnmatchcase(name, p) for p in patterns)


def _walk(top, walk, policy, budget):
    """("secret" | "limit" | "symlink" | "unreadable", path) or None. Iterative: a deep tree
    cannot exhaust the stack."""
    if is_secret((top,), policy):
        return "secret", top
    stack = [top]
    seen = set()
    while stack:
        directory = stack.pop()
        try:
            st = os.stat(directory)
        except OSError:
            return "unreadable", directory
        if (st.st_dev, st.st_ino) in seen:
            continue  # a loop through followed symlinks; each directory is read once
        seen.add((st.st_dev, st.st_ino))
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            return "unreadable", directory
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0:
                return "limit", directory
            name = entry.name
            # a filter may override the hidden rule for files (ripgrep's globs); directories
            # are entered whenever filters exist (a glob may select files below them)
            hidden_skip = not walk.hidden and name.startswith(".")
            path = os.path.join(directory, name)
            try:
                link = entry.is_symlink()
                if link:
                    if not walk.follow:
                        continue  # the command skips it
                    return "symlink", path
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                return "unreadable", path
            if is_dir:
                if hidden_skip and not walk.filters:
                    continue
                if walk.exclude_dir and _matches(name, walk.exclude_dir):
                    continue
                if is_secret((path,), policy):
                    return "secret", path
                stack.append(path)
                continue
            read, decided = walk.selects(name)
            if not read or (hidden_skip and not decided):
                continue
            if is_secret((path,), policy):
                return "secret", path
    return None
