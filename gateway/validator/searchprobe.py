"""Would a search print a line of a secret it reaches? Asked of the search tool itself.

`grep -rn TODO .` walks into `.env`, but it prints a line of `.env` only when that line
matches. When the only objection to a search (grep -r/-R, rg, git grep) is that its walk
reaches secret files, the SAME program is run here on exactly those secret files, with the
command's own pattern and matching options (-e/-f, -i/-w/-x/-F/-E/-P/-v, rg's
-S/-s/-U/--multiline..., git grep's revisions and --and/--or/--not), listing file names only
(`-l`). If it lists none of them, no line of a secret can be printed: the search is no read of
a secret. If it lists one, the answer is ask, naming that secret.

Fail closed: anything the probe cannot reproduce exactly is "unknown" and asks (GW509):

* an option that is not in the tables below (KEEP: it decides what matches and is passed on;
  DROP: it shapes only the output, or which files are searched, and is left out, which can
  only make the probe list more); rg's --passthru prints every line of every file, so the
  search prints the secrets whatever they hold (GW506);
* a patterns file (-f) that is not a regular file (`-f -` reads standard input), or a
  patterns file or ripgrep configuration while another part of the command line could write
  it first; GREP_OPTIONS set in the environment; an unreadable ripgrep configuration
  (RIPGREP_CONFIG_PATH: its arguments are judged like the command's own, the probe runs with
  --no-config);
* a secret that is not a regular file (a FIFO would block the read; a device), more than
  MAX_FILES secrets;
* a program found inside the project (the agent could have written it): the probe never runs
  code the agent wrote;
* a probe that fails, prints too much or takes longer than TIMEOUT seconds.

The program is the one the command resolves to: a path as written, else looked up in the
hook's PATH (the shell's). No shell is involved: the arguments are a list, the directory is
the segment's, the environment the hook's (the locale decides what -i and `.` match).

Telling the agent "allowed" means "no line of a secret matches": a one-bit oracle on a
secret's contents, like `git log -S TEXT` (docs/security.md, Known limits). It never prints a
line of a secret.
"""

import os
import stat

#: Seconds one probe may take; beyond it the search asks.
TIMEOUT = 2.0
#: Bytes of output read at most (file names only).
MAX_OUTPUT = 1 << 20
#: Secret files probed at most per search; more asks.
MAX_FILES = 256

# --- what each option means to the probe ---------------------------------------------------
# KEEP: passed on (canonical spelling); VALUED: KEEP options that take a value;
# DROP: left out (output shape, context, counts, which files a walk visits);
# ALL: prints lines whether they match or not.

_GREP_KEEP = frozenset((
    "-e", "--regexp", "-f", "--file", "-E", "--extended-regexp", "-F", "--fixed-strings",
    "-G", "--basic-regexp", "-P", "--perl-regexp", "-i", "--ignore-case",
    "--no-ignore-case", "-w", "--word-regexp", "-x", "--line-regexp", "--null-data",
    "-v", "--invert-match", "-a", "--text", "--binary-files"))
#: The Bash tool's `grep` is the client's embedded ugrep (docs/client-behaviour.md, "Bash's
#: grep is ugrep"), where -y is --any-line: every line is printed, matching or not (GNU's
#: -y is -i). -z (ugrep: search inside archives and compressed files; GNU: NUL-separated
#: lines) and -Z (ugrep: fuzzy matching; GNU: --null) mean other things to the two
#: programs: no GNU probe reproduces them, so they are in no table (unknown: GW509).
_GREP_ALL = frozenset(("-y", "--any-line"))
_GREP_VALUED = frozenset(("-e", "--regexp", "-f", "--file", "--binary-files"))
_GREP_DROP = frozenset((
    "-r", "--recursive", "-R", "--dereference-recursive", "-d", "--directories", "-D",
    "--devices", "--include", "--exclude", "--exclude-dir", "--exclude-from", "-A", "-B",
    "-C", "--context", "--after-context", "--before-context", "-m", "--max-count", "--label",
    "-s", "--no-messages", "-V", "--version", "-b", "--byte-offset", "-n", "--line-number",
    "--line-buffered", "-H", "--with-filename", "-h", "--no-filename", "-o",
    "--only-matching", "-q", "--quiet", "--silent", "-I", "-L", "--files-without-match",
    "-l", "--files-with-matches", "-c", "--count", "-T", "--initial-tab", "--null",
    "--no-group-separator", "--group-separator", "--color", "--colour", "-U", "--binary",
    "-u", "--unix-byte-offsets", "-0", "-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9"))

_RG_KEEP = frozenset((
    "-e", "--regexp", "-f", "--file", "-s", "--case-sensitive", "-i", "--ignore-case", "-S",
    "--smart-case", "-F", "--fixed-strings", "--no-fixed-strings", "-v", "--invert-match",
    "--no-invert-match", "-x", "--line-regexp", "-w", "--word-regexp", "-U", "--multiline",
    "--no-multiline", "--multiline-dotall", "--no-multiline-dotall", "--no-unicode",
    "--unicode", "--null-data", "-P", "--pcre2", "--no-pcre2", "--auto-hybrid-regex",
    "--no-auto-hybrid-regex", "--no-pcre2-unicode", "--pcre2-unicode", "--crlf", "--no-crlf",
    "-E", "--encoding", "--no-encoding", "--engine", "--dfa-size-limit", "--regex-size-limit",
    "-a", "--text", "--no-text"))
_RG_VALUED = frozenset(("-e", "--regexp", "-f", "--file", "-E", "--encoding", "--engine",
                        "--dfa-size-limit", "--regex-size-limit"))
_RG_DROP = frozenset((
    "-A", "-B", "-C", "--after-context", "--before-context", "--context", "-m", "--max-count",
    "-M", "--max-columns", "--max-columns-preview", "--no-max-columns-preview", "--color",
    "--colors", "-j", "--threads", "--max-depth", "--maxdepth", "-d", "--max-filesize",
    "--context-separator", "--no-context-separator", "--field-context-separator",
    "--field-match-separator", "--path-separator", "-r", "--replace", "--sort", "--sortr",
    "--hyperlink-format", "--ignore-file", "-g", "--glob", "--iglob", "-t", "--type", "-T",
    "--type-not", "--type-add", "--type-clear", "--mmap", "--no-mmap", "-L", "--follow",
    "--no-follow", "--glob-case-insensitive", "--no-glob-case-insensitive", "-.", "--hidden",
    "--no-hidden", "--ignore-file-case-insensitive", "--no-ignore-file-case-insensitive",
    "--no-ignore", "--ignore", "--no-ignore-dot", "--ignore-dot", "--no-ignore-exclude",
    "--ignore-exclude", "--no-ignore-files", "--ignore-files", "--no-ignore-global",
    "--ignore-global", "--no-ignore-parent", "--ignore-parent", "--no-ignore-vcs",
    "--ignore-vcs", "--no-require-git", "--require-git", "--one-file-system",
    "--no-one-file-system", "-u", "--unrestricted", "--block-buffered", "--no-block-buffered",
    "-b", "--byte-offset", "--no-byte-offset", "--column", "--no-column", "--heading",
    "--no-heading", "--include-zero", "--no-include-zero", "--line-buffered",
    "--no-line-buffered", "-n", "--line-number", "-N", "--no-line-number", "-0", "--null",
    "-o", "--only-matching", "-p", "--pretty", "-q", "--quiet", "--trim", "--no-trim",
    "--vimgrep", "-H", "--with-filename", "-I", "--no-filename", "--sort-files",
    "--no-sort-files", "-c", "--count", "--count-matches", "-l", "--files-with-matches",
    "--files-without-match", "--json", "--no-json", "--debug", "--trace",
    "--no-ignore-messages", "--ignore-messages", "--no-messages", "--messages", "--stats",
    "--no-stats", "--no-config", "--no-pre", "--no-search-zip", "--stop-on-nonmatch",
    "--binary", "--no-binary", "-h", "--help", "-V", "--version"))
_RG_ALL = frozenset(("--passthru", "--passthrough"))
#: What a ripgrep configuration file may hold besides _RG_KEEP: options that shape only the
#: output. One that changes which files are searched (--hidden, -L, -g, --no-ignore...)
#: would change the walk phase 5 made from the command line: the search asks (GW509).
_RG_CONFIG_OUTPUT = frozenset((
    "-A", "-B", "-C", "--after-context", "--before-context", "--context", "-m", "--max-count",
    "-M", "--max-columns", "--max-columns-preview", "--no-max-columns-preview", "--color",
    "--colors", "-j", "--threads", "--context-separator", "--no-context-separator",
    "--field-context-separator", "--field-match-separator", "--path-separator", "-r",
    "--replace", "--sort", "--sortr", "--hyperlink-format", "--mmap", "--no-mmap",
    "--block-buffered", "--no-block-buffered", "-b", "--byte-offset", "--no-byte-offset",
    "--column", "--no-column", "--heading", "--no-heading", "--include-zero",
    "--no-include-zero", "--line-buffered", "--no-line-buffered", "-n", "--line-number", "-N",
    "--no-line-number", "-0", "--null", "-o", "--only-matching", "-p", "--pretty", "--trim",
    "--no-trim", "--vimgrep", "-H", "--with-filename", "-I", "--no-filename", "--sort-files",
    "--no-sort-files", "-c", "--count", "--count-matches", "-l", "--files-with-matches",
    "--files-without-match", "-q", "--quiet", "--json", "--no-json", "--no-ignore-messages",
    "--ignore-messages", "--no-messages", "--messages", "--stats", "--no-stats",
    "--stop-on-nonmatch"))

_GIT_KEEP = frozenset((
    "-e", "-f", "--and", "--or", "--not", "(", ")", "--all-match", "-i", "--ignore-case",
    "-w", "--word-regexp", "-v", "--invert-match", "-E", "--extended-regexp", "-G",
    "--basic-regexp", "-P", "--perl-regexp", "-F", "--fixed-strings", "-a", "--text",
    "--no-textconv", "--cached", "--untracked", "--no-index", "--index",
    "--no-exclude-standard", "--exclude-standard"))
_GIT_VALUED = frozenset(("-e", "-f"))
_GIT_DROP = frozenset((
    "-I", "--max-depth", "-r", "--recursive", "--no-recursive", "-h", "-H", "--full-name",
    "-n", "--line-number", "--column", "-l", "--files-with-matches", "--name-only", "-L",
    "--files-without-match", "-z", "--null", "-o", "--only-matching", "-c", "--count",
    "--color", "--no-color", "--break", "--heading", "-p", "--show-function", "-A", "-B",
    "-C", "--context", "--after-context", "--before-context", "-W", "--function-context",
    "-m", "--max-count", "--threads", "-q", "--quiet", "-0", "-1", "-2", "-3", "-4", "-5",
    "-6", "-7", "-8", "-9"))
#: git grep options that take the next word as their value (and are dropped)
_GIT_DROP_VALUED = frozenset(("--max-depth", "-A", "-B", "-C", "--context", "--after-context",
                              "--before-context", "-m", "--max-count", "--threads"))

_TABLES = {"grep": (_GREP_KEEP, _GREP_VALUED, _GREP_DROP, _GREP_ALL),
           "rg": (_RG_KEEP, _RG_VALUED, _RG_DROP, _RG_ALL),
           "git-grep": (_GIT_KEEP, _GIT_VALUED, _GIT_DROP, frozenset())}


class Unknown(Exception):
    """The probe cannot answer: the search asks (GW509) with this reason."""


class PrintsAll(Exception):
    """An option prints every line, matching or not (rg --passthru)."""


def _classify(kind, name):
    """("keep" | "drop", canonical name). A long option as written may abbreviate one (GNU
    getopt_long, git's parser): it is read as the one it stands for, and when it may stand
    for several, every one of them must be dropped. Raises Unknown or PrintsAll."""
    keep, _valued, drop, every = _TABLES[kind]
    if name in every:
        raise PrintsAll(name)
    if name in keep:
        return "keep", name
    if name in drop:
        return "drop", name
    if name.startswith("--") and len(name) >= 3:
        hits = sorted(n for n in keep | drop | every if n.startswith(name))
        if any(h in every for h in hits):
            raise PrintsAll(name)
        if hits and all(h in drop for h in hits):
            return "drop", hits[0]
        if len(hits) == 1:
            return "keep", hits[0]
    raise Unknown(f"the option {name} is not one the probe models")


def _pattern_file(value, cwd, multi):
    if value in ("-", "") or value.startswith("/dev/") or value.startswith("/proc/"):
        raise Unknown(f"the patterns come from {value or 'an empty name'!r}, which may be "
                      "standard input")
    path = os.path.join(cwd, value)
    try:
        st = os.stat(path)
    except OSError:
        raise Unknown(f"the patterns file {value!r} cannot be read") from None
    if not stat.S_ISREG(st.st_mode):
        raise Unknown(f"the patterns file {value!r} is not a regular file")
    if multi:
        raise Unknown(f"the patterns file {value!r} may be written by another part of the "
                      "command line before the search runs")
    return path


def _options(kind, options, cwd, multi):
    """The probe's matching options for parsed `options` (argv.Option), in order."""
    _keep, valued, _drop, _every = _TABLES[kind]
    out = []
    for opt in options:
        what, canon = _classify(kind, opt.name)
        if what == "drop":
            continue
        if canon in valued:
            if opt.value is None:
                raise Unknown(f"{opt.name} has no value")
            if canon in ("-f", "--file"):
                _pattern_file(opt.value, cwd, multi)
            if canon == "--binary-files":
                # without-match skips binary files (like -I): leaving it out lists more
                if opt.value != "without-match":
                    out.append(f"--binary-files={opt.value}")
                continue
            out.extend((canon, opt.value))
        else:
            if opt.value is not None:
                raise Unknown(f"{opt.name} is given a value ({opt.value!r})")
            out.append(canon)
    return out


def _program(word, cwd, env, roots):
    """The program the command word resolves to, outside the project; Unknown otherwise."""
    import shutil

    if "/" in word:
        path = os.path.join(cwd, word)
    else:
        path = shutil.which(word, path=env.get("PATH", os.defpath))
        if path is None:
            raise Unknown(f"{word} is not found in PATH")
        path = os.path.join(cwd, path)
    realp = os.path.realpath(path)
    if roots is not None and (roots.really_inside(realp) or roots.lexically_inside(path)):
        raise Unknown(f"{word} resolves to {path!r}, inside the project: the gateway does "
                      "not run a program the agent could have written")
    if not os.access(realp, os.X_OK) or not os.path.isfile(realp):
        raise Unknown(f"{word} resolves to {path!r}, which is not an executable file")
    return path


def _regular(files):
    for f in files:
        try:
            st = os.lstat(f)
        except OSError:
            raise Unknown(f"the secret {f!r} cannot be examined") from None
        if not stat.S_ISREG(st.st_mode):
            raise Unknown(f"the secret {f!r} is not a regular file (a FIFO, a device, a "
                          "socket or a link): it is not searched here")


def _stamp(paths):
    out = []
    for p in paths:
        try:
            st = os.stat(p)
            out.append((p, st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            out.append((p, None))
    return tuple(out)


def _execute(argv, cwd, env, stamped):
    """(exit status, stdout) of `argv`; Unknown on a timeout, a failure, too much output.
    Answers are reused inside a _gitquery.session() while the files are unchanged."""
    import signal
    import subprocess

    from gateway.tools import gitquery as gq

    caching = gq._SESSIONS[0] > 0
    key = ("searchprobe", tuple(argv), cwd)
    stamp = _stamp(stamped) if caching else None
    hit = gq._CACHE.get(key) if caching else None
    if hit is not None and hit[0] == stamp:
        result = hit[1]
    else:
        result = None
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
        except (OSError, ValueError) as exc:
            result = ("error", f"it could not be started ({exc.__class__.__name__})")
        else:
            try:
                out, _ = proc.communicate(timeout=TIMEOUT)
                result = ("ran", proc.returncode, out)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    proc.kill()
                proc.communicate()
                result = ("error", f"it took longer than {TIMEOUT:g} s")
        if caching:
            if len(gq._CACHE) >= gq._CACHE_MAX:
                gq._CACHE.clear()
            gq._CACHE[key] = (stamp, result)
    if result[0] == "error":
        raise Unknown(f"the probe failed: {result[1]}")
    _tag, rc, out = result
    if len(out) > MAX_OUTPUT:
        raise Unknown("the probe printed too much")
    return rc, out


def _listed(rc, out, files, cwd):
    """The first of `files` the probe listed, or "" for none; Unknown on an error status."""
    if rc == 1 and not out:
        return ""
    if rc != 0 or not out:
        raise Unknown(f"the probe ended with status {rc}")
    names = [os.fsdecode(n) for n in out.split(b"\0") if n.strip(b"\n")]
    for f in files:
        rel = os.path.relpath(f, cwd)
        for n in names:
            n = n.strip("\n")
            if n in (f, rel) or n.endswith(":" + rel) or n.endswith("/" + os.path.basename(f)) \
                    or n == os.path.basename(f):
                return f
    return files[0]  # something was listed: a secret matches, whichever


def _grep_like(kind, search, files, cwd, env, roots, multi):
    from gateway.tools.recursive import pattern_given as _pattern_given

    args = search.args
    if kind == "grep" and (env.get("GREP_OPTIONS") or "").strip():
        raise Unknown("GREP_OPTIONS is set: it may add options the probe does not see")
    pre = []
    stamped = list(files)
    if kind == "rg" and not args.has("--no-config"):
        cfg, cfg_path = _rg_config(search, cwd, env, multi)
        pre = _options(kind, cfg.options, cwd, multi)
        if cfg_path:
            stamped.append(cfg_path)
    opts = pre + _options(kind, args.options, cwd, multi)
    for o in (o for o in args.options if o.name in ("-f", "--file") and o.value):
        stamped.append(os.path.join(cwd, o.value))
    if not (_pattern_given(args)):
        if not args.positionals:
            raise Unknown("no pattern is given")
        opts += ["-e", args.positionals[0]]
    # the options first: one that prints every line (PrintsAll) decides without the program
    program = _program(search.word, cwd, env, roots)
    if kind == "grep":
        argv = [program, *opts, "--files-with-matches", "--null",
                "--no-messages", "--", *files]
    else:
        argv = [program, "--no-config", *opts, "--files-with-matches", "--null",
                "--no-messages", "--", *files]
    run_env = {k: v for k, v in env.items() if k != "RIPGREP_CONFIG_PATH"}
    rc, out = _execute(argv, cwd, run_env, stamped)
    return _listed(rc, out, files, cwd)


def _rg_config(search, cwd, env, multi):
    """(the ripgrep configuration's arguments parsed like the command's, its path or "")."""
    from gateway.shell import argv as argvmod

    path = env.get("RIPGREP_CONFIG_PATH") or ""
    if not path:
        return argvmod.Args(), ""
    full = os.path.join(cwd, path)
    try:
        st = os.stat(full)
        if not stat.S_ISREG(st.st_mode) or st.st_size > (1 << 20):
            raise OSError
        with open(full, "rb") as fh:
            data = fh.read()
    except OSError:
        raise Unknown(f"the ripgrep configuration {path!r} (RIPGREP_CONFIG_PATH) cannot be "
                      "read") from None
    if multi:
        raise Unknown(f"the ripgrep configuration {path!r} may be written by another part of "
                      "the command line before the search runs")
    words = [ln for ln in data.decode("utf-8", "surrogateescape").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    cfg = argvmod.parse(words, search.value_flags)
    if cfg.positionals:
        raise Unknown(f"the ripgrep configuration {path!r} holds a word that is not an option")
    for opt in cfg.options:
        if opt.name not in _RG_KEEP and opt.name not in _RG_CONFIG_OUTPUT:
            raise Unknown(f"the ripgrep configuration {path!r} holds {opt.name}, which may "
                          "change what is searched or printed")
    return cfg, full


def environment(ctx, search, cwd):
    """Why the search's environment changes it in ways the walk and the probe do not see
    (GREP_OPTIONS for grep; a ripgrep configuration with an option other than matching and
    output ones), or "". Run before the walk, whether a secret is reached or not."""
    env = ctx.env
    try:
        if search.kind == "grep" and (env.get("GREP_OPTIONS") or "").strip():
            raise Unknown("GREP_OPTIONS is set: it may add options the gateway does not see")
        if search.kind == "rg" and env.get("RIPGREP_CONFIG_PATH") and \
                not search.args.has("--no-config"):
            _rg_config(search, cwd, env, False)
    except Unknown as exc:
        return str(exc)
    return ""


def _git_words(words):
    """(options as argv.Option, positionals before `--`, has_pattern_option) as git grep
    reads `words`: options until the first word that is not one (its parser stops there;
    `(` and `)` are options), then the pattern (unless -e/-f) and revisions or paths."""
    from gateway.shell.argv import Option

    opts = []
    i = 0
    n = len(words)
    while i < n:
        w = words[i]
        if w == "--":
            break
        if w in ("(", ")"):
            opts.append(Option(w, None, w))
            i += 1
            continue
        if not w.startswith("-") or w == "-":
            break
        i += 1
        if w.startswith("--"):
            name, eq, value = w.partition("=")
            try:
                _what, canon = _classify("git-grep", name)
            except PrintsAll:
                canon = name
            if eq:
                opts.append(Option(name, value, w))
            elif (canon in _GIT_VALUED or canon in _GIT_DROP_VALUED) and i < n:
                opts.append(Option(name, words[i], w))
                i += 1
            else:
                opts.append(Option(name, None, w))
            continue
        letters = w[1:]
        if letters.isdigit():
            opts.append(Option(w, None, w))  # -3: context lines
            continue
        for k, ch in enumerate(letters):
            flag = "-" + ch
            if flag in _GIT_VALUED or flag in _GIT_DROP_VALUED:
                rest = letters[k + 1:]
                if rest:
                    opts.append(Option(flag, rest, w))
                elif i < n:
                    opts.append(Option(flag, words[i], w))
                    i += 1
                else:
                    opts.append(Option(flag, None, w))
                break
            opts.append(Option(flag, None, w))
    pos = []
    while i < n and words[i] != "--":
        pos.append(words[i])
        i += 1
    given = any(o.name in ("-e", "-f") for o in opts)
    return opts, pos, given


def git_grep(ctx, words, files, cwd, repo=None):
    """The probe for `git grep`: "" (no secret listed), the first secret it lists, or raises
    Unknown. `files`: absolute paths of the secrets it searches. With `repo`
    (checks/git._Repo): the files git itself listed as searched (tracked files, revisions);
    without: the working tree read with --no-index/--untracked (phase 5's walk)."""
    from gateway.tools import gitquery as gq

    multi = _multi(ctx)
    opts, pos, given = _git_words(words)
    matching = _options("git-grep", opts, cwd, multi)
    if not given:
        if not pos:
            raise Unknown("no pattern is given")
        matching += ["-e", pos[0]]
        pos = pos[1:]
    stamped = list(files) + [os.path.join(cwd, o.value) for o in opts
                             if o.name == "-f" and o.value]
    rel = [os.path.relpath(f, cwd) for f in files]
    if repo is None:
        globals_ = gq.passed_globals(list(getattr(ctx, "git_globals", ()) or ()))
        _plain_pathspecs(globals_)
        argv = ["git", "--literal-pathspecs", *globals_, "grep", "-l", "-z", "--no-color",
                *matching, "--", *rel]
        rc, out = _execute(argv, cwd, _git_env(ctx.env), stamped)
        return _listed(rc, out, files, cwd)
    revs = []
    if pos and "--no-index" not in matching:
        if any(p.startswith("-") or ":" in p for p in pos):
            raise Unknown("a revision or path the probe does not model")
        types = gq.object_types(repo.cwd, repo.git_dir, pos, repo.globals)
        if types is None:
            raise Unknown("git could not say which words are revisions")
        revs = [p for p in pos if types.get(p) != "missing"]
    _plain_pathspecs(repo.globals)
    query = ["grep", "-l", "-z", "--no-color", *matching, *revs, "--", *rel]
    out = gq.run(repo.cwd, repo.git_dir, query, ["--literal-pathspecs", *repo.globals],
                 ok=(0, 1), locale=ctx.env)
    if out is None:
        raise Unknown("git could not search the secrets (a timeout, a partial clone, an error)")
    return _listed(0 if out else 1, out, files, cwd)


def _plain_pathspecs(globals_):
    if any(g.split("=", 1)[0] in ("--glob-pathspecs", "--icase-pathspecs",
                                  "--noglob-pathspecs", "--literal-pathspecs")
           for g in globals_):
        raise Unknown("a global pathspec option the probe does not model")


def _git_env(env):
    from gateway.tools import gitquery as gq

    out = gq._env()
    for k in ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE"):
        out.pop(k, None)
        if env.get(k) is not None:
            out[k] = env[k]
    return out


def _multi(ctx):
    script = getattr(ctx, "script", None)
    if script is None:
        return True
    try:
        return sum(len(p.commands) for p, _op in script.items) > 1
    except (AttributeError, TypeError):
        return True


def probe(ctx, search, files, cwd):
    """("clean" | "match" | "unknown" | "all", detail) for a search (phase5_recursive.Search)
    that reaches the secret `files` (absolute paths): detail is the secret listed, the
    reason the probe cannot answer, or the option that prints every line."""
    try:
        if len(files) > MAX_FILES:
            raise Unknown(f"it reaches more than {MAX_FILES} secrets")
        _regular(files)
        if search.kind == "git-grep":
            found = git_grep(ctx, search.words, files, cwd)
        else:
            found = _grep_like(search.kind, search, files, cwd, dict(ctx.env), ctx.roots,
                               _multi(ctx))
    except PrintsAll as exc:
        return "all", str(exc)
    except Unknown as exc:
        return "unknown", str(exc)
    return ("match", found) if found else ("clean", "")
