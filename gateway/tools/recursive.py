"""The recursive readers' walk: which files a command that reads whole trees reads, walked
the way the command itself walks them (grep -r, rg, diff -r, git diff --no-index, git grep
--no-index, cp -r). Read by both hooks: the validator's phase 5
(gateway.validator.phase5_recursive: a secret inside stops the allow) and the guards' Grep
and MCP reads (gateway.guards.reads). The walk is bounded (WALK_LIMIT entries); a bigger
tree, a symlink the command would follow, or a directory that cannot be listed is not
proven clean.

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

from gateway.paths import fnmatchcase, is_secret
from gateway.shell import argv as argvmod

WALK_LIMIT = 20000  # entries per command; more is "not proven clean", never "clean"
#: ripgrep's --type definitions for common types, as plain base-name globs. A type not
#: listed here is not modelled: the search is taken to read every file.
RG_TYPES = {
    "py": ("*.py", "*.pyi"), "python": ("*.py", "*.pyi"),
    "js": ("*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"),
    "ts": ("*.ts", "*.tsx", "*.cts", "*.mts"), "typescript": ("*.ts", "*.tsx", "*.cts", "*.mts"),
    "go": ("*.go",), "rust": ("*.rs",), "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "c": ("*.c", "*.h", "*.H", "*.cats"), "cpp": ("*.C", "*.cc", "*.cpp", "*.cxx", "*.h",
                                                "*.H", "*.hh", "*.hpp", "*.hxx", "*.inl"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"),
    "json": ("*.json", "composer.lock", "*.sarif"), "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml", "Cargo.lock"), "html": ("*.htm", "*.html", "*.ejs"),
    "css": ("*.css", "*.scss"), "rb": ("*.rb", "Gemfile", "*.gemspec", "Rakefile"),
    "ruby": ("*.rb", "Gemfile", "*.gemspec", "Rakefile"),
}


class Walk:
    """What to walk and how: the start directories (as written) and the walker's rules."""

    __slots__ = ("paths", "follow", "hidden", "filters", "default_include", "exclude_dir",
                 "outside_git_only", "ignore_whitelists", "ignore_files", "dir_filters",
                 "search")

    def __init__(self, paths, follow=False, hidden=True, filters=(), default_include=True,
                 exclude_dir=(), outside_git_only=False, include=(), ignore_whitelists=False,
                 ignore_files=(), dir_filters=None, search=None):
        # search: a Search when the command prints only the lines that match (the secrets
        # the walk reaches are then probed, searchprobe.py); None: every secret reached is
        # read
        self.search = search
        # dir_filters: the filters that may whitelist a hidden directory (ripgrep's glob
        # overrides; its types never match a directory); None: any filter may
        self.dir_filters = dir_filters
        # ignore_whitelists: a `!pattern` in an ignore file lifts the hidden rule for what it
        # names (ripgrep): hidden files are read when any ignore file it reads has one;
        # ignore_files: the --ignore-file files it reads besides the ones it finds
        self.ignore_whitelists = ignore_whitelists
        self.ignore_files = list(ignore_files)
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

    def selects(self, name, filters=None):
        """(read?, decided by a filter?) for a file's base name. A glob is matched the ways
        the tools may match it (characters or bytes: `?` is one byte in the C locale; case
        folded by lower() or casefold()): the file is read when any way reads it."""
        best = None
        filters = self.filters if filters is None else filters
        for way in _WAYS:
            hit = None
            for include, glob, fold in filters:
                if _glob_hit(way, name, glob, fold):
                    hit = include
            got = (self.default_include, False) if hit is None else (hit, True)
            if best is None or got[0] and not best[0] or (got[0] == best[0] and got[1]):
                best = got
        return best


#: the ways a glob filter may be matched against a name (see Walk.selects)
_WAYS = ("str", "bytes")


def _glob_hit(way, name, glob, fold):
    if way == "bytes":
        try:
            n = name.encode("utf-8", "surrogateescape").decode("latin-1")
            g = glob.encode("utf-8", "surrogateescape").decode("latin-1")
        except UnicodeError:
            return True
        return fnmatchcase(n.lower() if fold else n, g.lower() if fold else g)
    if fold:
        return (fnmatchcase(name.lower(), glob.lower())
                or fnmatchcase(name.casefold(), glob.casefold()))
    return fnmatchcase(name, glob)


#: Glob syntax whose meaning differs between fnmatch and the tools (path globs, ripgrep's
#: ** and {a,b}, bracket negation with ^, escapes): a filter using it is dropped.
_UNMODELLED = ("/", "**", "{", "}", "[", "]", "\\")


def _modelled(glob):
    return bool(glob) and not any(t in glob for t in _UNMODELLED)


def plan(kind, args, positionals):
    """The Walk for a command of `kind` with parsed `args` (gateway.shell.argv.Args)
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


_PATTERN_FLAGS = ("-e", "--regexp", "-f", "--file")


def pattern_given(args) -> bool:
    """grep's (and rg's) arguments: a pattern option is present, so every positional is a
    file: -e/-f, or a long option that is or may abbreviate --regexp/--file
    (`grep --reg=KEY .env` reads .env)."""
    for opt in args.options:
        if opt.name in _PATTERN_FLAGS:
            return True
        if opt.name.startswith("--") and any(argvmod.long_matches(opt.name, f)
                                             for f in ("--regexp", "--file")):
            return True
    return False


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
    """ripgrep's walk. Hidden names are skipped unless --hidden (or -uu), a glob override
    (-g/--iglob, case-folded with --glob-case-insensitive) that whitelists the name, a type
    selection (-t) that matches it, or a `!` rule in an ignore file (.gitignore, .ignore,
    .rgignore here or in a parent, the repository's info/exclude, the global excludes file,
    --ignore-file) lifts that rule. Overrides decide before types; a type the model does not
    know, or types changed with --type-add/--type-clear, read everything."""
    if any(o.name in ("--files", "--type-list", "--pcre2-version", "--generate")
           for o in args.options):
        return None  # names, the type list, versions: no file is read
    follow = hidden = False
    unrestricted = 0
    overrides = []
    types = []
    fold_all = False
    dropped = False
    ignore_files = []
    for opt in args.options:
        name = opt.name
        if name == "-L" or name == "--follow":
            follow = True
        elif name == "--no-follow":
            follow = follow  # a later --follow wins anyway; following is the wider reading
        elif name in ("-.", "--hidden"):
            hidden = True
        elif name == "-u" or name == "--unrestricted":
            unrestricted += 1
        elif name == "--glob-case-insensitive":
            fold_all = True
        elif name == "--no-glob-case-insensitive":
            fold_all = False
        elif name in ("-g", "--glob", "--iglob"):
            glob = opt.value or ""
            negated = glob.startswith("!")
            body = glob[1:] if negated else glob
            if _modelled(body):
                overrides.append((not negated, body, name == "--iglob"))
            else:
                dropped = True
        elif name in ("-t", "--type"):
            globs = _rg_type(opt.value or "")
            if globs is None:
                dropped = True
            else:
                types.extend((True, g, False) for g in globs)
        elif name in ("--type-add", "--type-clear"):
            dropped = True  # the types are redefined: not modelled
        elif name == "--ignore-file" and opt.value:
            ignore_files.append(opt.value)
    if dropped:
        # a glob or a type the model cannot read may select anything, hidden names included
        return Walk(paths or ["."], follow=follow, hidden=True)
    overrides = [(inc, g, fold or fold_all) for inc, g, fold in overrides]
    # types come first: an override that matches decides before them (the last match wins)
    filters = types + overrides
    default = not any(include for include, _, _ in filters)
    return Walk(paths or ["."], follow=follow, hidden=hidden or unrestricted >= 2,
                filters=filters, default_include=default,
                ignore_whitelists=unrestricted == 0, ignore_files=ignore_files,
                dir_filters=overrides)


def _rg_type(name):
    """The globs of ripgrep's built-in type `name`, or None when the model does not know
    it (RG_TYPES holds plain base-name globs of the common types)."""
    globs = RG_TYPES.get(name)
    if globs is None or not all(_modelled(g) for g in globs):
        return None
    return list(globs)


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


def _matches(name, patterns):
    return any(fnmatchcase(name, p) for p in patterns)


_IGNORE_NAMES = (".gitignore", ".ignore", ".rgignore")
_IGNORE_READ_MAX = 1 << 20


def _has_whitelist(path) -> bool:
    """Does the ignore file at `path` hold a `!pattern` line? Unreadable or too large: yes
    (it is not proven free of one)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(_IGNORE_READ_MAX + 1)
    except FileNotFoundError:
        return False
    except OSError:
        return os.path.lexists(path)
    if len(data) > _IGNORE_READ_MAX:
        return True
    return any(line.lstrip().startswith(b"!") for line in data.splitlines())


def _outer_whitelist(tops, extra, home):
    """An ignore file outside the walked trees that ripgrep reads and that holds a `!`
    rule, or "": the directories above each start (to the root), the repository's
    info/exclude, the global git excludes file and the --ignore-file files."""
    seen = set()
    for f in extra:
        if _has_whitelist(f):
            return f
    for top in tops:
        d = os.path.dirname(top)
        while d not in seen:
            seen.add(d)
            for name in _IGNORE_NAMES:
                if _has_whitelist(os.path.join(d, name)):
                    return os.path.join(d, name)
            exclude = os.path.join(d, ".git", "info", "exclude")
            if _has_whitelist(exclude):
                return exclude
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    for top in tops:
        exclude = os.path.join(top, ".git", "info", "exclude")
        if _has_whitelist(exclude):
            return exclude
    for g in _global_excludes(home):
        if _has_whitelist(g):
            return g
    return ""


def _global_excludes(home):
    """git's global excludes files: core.excludesFile of the user's git configuration, else
    $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore."""
    out = []
    xdg = os.environ.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    configs = [os.path.join(home, ".gitconfig")] if home else []
    if xdg:
        configs.append(os.path.join(xdg, "git", "config"))
        out.append(os.path.join(xdg, "git", "ignore"))
    for cfg in configs:
        try:
            with open(cfg, "rb") as fh:
                text = fh.read(_IGNORE_READ_MAX).decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            key, eq, value = line.partition("=")
            if eq and key.strip().lower() == "excludesfile":
                value = value.strip().strip('"')
                if value.startswith("~/") and home:
                    value = os.path.join(home, value[2:])
                out.append(value)
    return out


def walk(top, walk, policy, budget, collect=None, files=None):
    """("secret" | "limit" | "symlink" | "unreadable" | "whitelist", path) or None.
    Iterative: a deep tree cannot exhaust the stack. With `collect` (a list), the secret
    files the walk reaches are appended to it instead (a secret directory is walked into:
    its files are secrets), and "secret" is never returned. With `files` (a list), every
    other file the command reads is appended to it (their content is judged by the caller:
    gateway.secrets.content)."""
    if collect is None and is_secret((top,), policy):
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
        if walk.ignore_whitelists and not walk.hidden:
            for entry in entries:
                if entry.name in _IGNORE_NAMES and _has_whitelist(entry.path):
                    return "whitelist", entry.path
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
                if hidden_skip and walk.dir_filters is not None:
                    if not walk.selects(name, walk.dir_filters) == (True, True):
                        continue  # no glob whitelists the hidden directory
                elif hidden_skip and not walk.filters:
                    continue
                if walk.exclude_dir and _matches(name, walk.exclude_dir):
                    continue
                if collect is None and is_secret((path,), policy):
                    return "secret", path
                stack.append(path)
                continue
            read, decided = walk.selects(name)
            if not read or (hidden_skip and not decided):
                continue
            if is_secret((path,), policy):
                if collect is None:
                    return "secret", path
                collect.append(path)
            elif files is not None:
                files.append(path)
    return None


def content_secrets(paths, policy, env):
    """(secret files by content [(path, detail)], the first file not scanned or None) of the
    files a walk reads (gateway.secrets.content, cached by identity)."""
    from gateway.secrets import content

    found = content.verdicts(paths, policy, env)
    secrets = [(v.path, v.detail) for v in found if v.kind == content.SECRET]
    unscanned = next((v for v in found if v.kind != content.SECRET), None)
    return secrets, unscanned
