"""Secrets the sandbox cannot hide: while a project has any, a program whose reads cannot be
known may still print one from inside the sandbox, so the hook keeps asking (GW840).

denyRead hides files by name. What it cannot hide:

* git's object store: a secret committed once (or still tracked) is printed by `git show
  HEAD:.env` from the objects, not the file (measured: sandboxed, it printed). Every path in
  the history (every ref and reflog entry) is checked against the secret rules, once per
  state of the refs (cached in the gateway's cache directory);
* credentials in git's configuration (a token in a remote URL, an extraHeader): git must read
  its configuration, so it is never hidden; the entries of `git config --list` are checked as
  `git config` reads are (gateway.validator.checks.gitconfig.credential);
* files the rules call secret under a name the sandbox's globs do not match: another case
  (`.ENV`), a backup suffix (`.env.bak`), a rule with `**` inside it; and archives, whose
  members are read without being unpacked. The project is walked (bounded) for them: an
  archive is listed (zip, tar) and counts only when a member is a secret or it cannot be
  listed.

* a version in git's history of a file whose name decides nothing, holding a credential by
  content (gateway.secrets.blobs, cached by blob id): git show prints it from the objects.

Not covered here (docs/sandbox.md): a file in the tree whose content is a secret under an
ordinary name (gateway.sandbox.decide.Floor.tree_by_content judges those per call), and git
objects no ref or reflog reaches. Fail closed: whatever cannot be checked (git too slow,
a walk over its bound, an archive too big to list) counts as a secret.
"""

import os

WALK_LIMIT = 50000
ARCHIVE_LIMIT = 20 * 1024 * 1024  # bytes of an archive listed; bigger: cannot be checked
GIT_TIMEOUT = 10.0
_ARCHIVES = (".zip", ".jar", ".war", ".whl", ".tar", ".tgz", ".tar.gz", ".tbz2", ".tar.bz2",
             ".txz", ".tar.xz", ".7z", ".rar", ".gz", ".bz2", ".xz", ".zst")


def find(policy, project, env, globs=None) -> list:
    """Reasons (text) why the sandbox does not hide every secret of `project`; [] when it
    does."""
    out = []
    out += _git_history(policy, project, env)
    out += _git_config(project, env)
    out += _walk(policy, project, globs)
    return out


# --- git ---------------------------------------------------------------------------------


def _git(project, args, timeout=GIT_TIMEOUT):
    import subprocess

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "0",
           "HOME": os.environ.get("HOME", "/"), "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        p = subprocess.run(["git", "-C", project, *args], capture_output=True,
                           timeout=timeout, stdin=subprocess.DEVNULL, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p


def _is_repo(project) -> bool:
    d = project
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def _git_history(policy, project, env) -> list:
    if not _is_repo(project):
        return []
    refs = _git(project, ["for-each-ref", "--format=%(objectname) %(refname)"])
    logs = _git(project, ["log", "-g", "--all", "--format=%H"])
    if refs is None or refs.returncode != 0:
        return ["git's refs could not be read, so the history cannot be checked for secrets"]
    state = refs.stdout + b"\n--\n" + (logs.stdout if logs is not None and
                                      logs.returncode == 0 else b"?")
    from gateway.cachedir import cache_dir, key

    cache = os.path.join(cache_dir(env), "residual",
                         key(os.path.realpath(project)) + "-" + _digest(state) + "-c.txt")
    cached = _read_cache(cache)
    if cached is not None:
        return cached
    p = _git(project, ["rev-list", "--all", "--reflog", "--objects"])
    if p is None or p.returncode != 0:
        return ["git could not list the history in time, so it cannot be checked for secrets"]
    from gateway import paths
    from gateway.secrets.blobs import key as blob_key

    found = []
    seen = set()
    ordinary = {}  # blob key -> path: versions of files whose names decide nothing
    for line in p.stdout.split(b"\n"):
        sha, _, name = line.partition(b" ")
        if not name:
            continue
        text = name.decode("utf-8", "surrogateescape")
        if name not in seen:
            seen.add(name)
            pat = paths.is_secret(("/" + text,), policy)
            if pat:
                found.append(f"git's history holds the secret {text!r} ({pat}): git show "
                             "prints it from the objects, which the sandbox does not hide")
                if len(found) >= 3:
                    break
                continue
        elif paths.is_secret(("/" + text,), policy):
            continue
        ordinary.setdefault(blob_key(sha.decode("ascii", "replace"), text), text)
    if not found:
        why = _history_content(policy, project, env, ordinary)
        if why is not None:
            return [why]  # not kept: a scan not done in time goes on in the background
    _write_cache(cache, found)
    return found


def _history_content(policy, project, env, ordinary):
    """Why a version in git's history of a file whose name decides nothing holds a credential
    or could not be scanned (git show prints it from the objects: the sandbox hides names,
    not contents), or None. Verdicts are kept by blob id (gateway.secrets.blobs)."""
    from gateway.secrets import blobs, content

    if not ordinary or content.settings(policy) is None:
        return None

    def git(args, stdin):
        import subprocess

        try:
            r = subprocess.run(["git", "-C", project, *args], input=stdin,
                               capture_output=True, timeout=GIT_TIMEOUT,
                               env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                    "HOME": os.environ.get("HOME", "/"), "LC_ALL": "C",
                                    "GIT_OPTIONAL_LOCKS": "0"})
        except (OSError, subprocess.TimeoutExpired):
            return None
        return r.stdout if r.returncode == 0 else None

    v = blobs.verdict(set(ordinary), git, policy, env)
    if v is None:
        return None
    where = ordinary.get(v.path, "a file")
    if v.kind == content.SECRET:
        return (f"a version of {where!r} in git's history holds a credential ({v.detail}): "
                "git show prints it from the objects, and the sandbox hides names, not "
                "contents")
    return (f"versions of files in git's history could not be checked for credentials "
            f"({where!r}: {v.detail})")


def _digest(data: bytes) -> str:
    from hashlib import sha256

    return sha256(data).hexdigest()[:24]


def _read_cache(path):
    try:
        st = os.lstat(path)
        if not (st.st_mode & 0o170000 == 0o100000) or st.st_uid != os.getuid() \
                or st.st_mode & 0o022 or st.st_size > 65536:
            return None
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("ok\n"):
        return None
    return [line for line in text[3:].split("\n") if line]


def _write_cache(path, found) -> None:
    import tempfile

    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".r-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("ok\n" + "".join(f.replace("\n", " ") + "\n" for f in found))
        os.replace(tmp, path)
    except OSError:
        pass


def _git_config(project, env) -> list:
    if not _is_repo(project):
        return []
    p = _git(project, ["config", "--list", "-z"])
    if p is None or p.returncode not in (0, 1):
        return ["git's configuration could not be read, so it cannot be checked for "
                "credentials"]
    from gateway.tools.gitconfig import credential

    for entry in p.stdout.split(b"\x00"):
        if not entry:
            continue
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        why = credential(key, value)
        if why:
            return [f"git's configuration holds a credential ({why}): git reads it, so the "
                    "sandbox cannot hide it"]
    return []


# --- the project's files -----------------------------------------------------------------


def _covered(rel, globs) -> bool:
    """Does one of the sandbox's `**/<pattern>` globs match the project-relative path `rel`
    exactly as the client matches it (case-sensitive, per component)?"""
    from gateway.paths import fnmatchcase

    parts = rel.split("/")
    for g in globs:
        pat = g[3:] if g.startswith("**/") else g
        pparts = pat.split("/")
        n = len(pparts)
        # the glob hides the file itself, or a directory on its way
        for end in range(n, len(parts) + 1):
            tail = parts[end - n:end]
            if all(fnmatchcase(a, b) for a, b in zip(tail, pparts, strict=True)):
                return True
    return False


class _Quick:
    """is_secret for the walk, with the same answers as gateway.paths.is_secret on the
    whole path. A small tree is judged name by name (a base name once, memoised); past
    REGEX_AFTER entries one case-insensitive regex of the last components of every secret
    rule (and the secret directory names) rejects most names at once, and only a name it
    does not reject is judged by is_secret. (This runs only for a call the sandbox may let
    through, never on the hook's plain path, so it may import `re`.)"""

    REGEX_AFTER = 2000

    def __init__(self, policy):
        from gateway import paths

        self.policy = policy
        self.names = paths.secret_names
        self.memo = {}
        self.rx = None
        self.seen = 0
        self.multi = any("/" in p for p in policy.secret_patterns)

    def _regex(self):
        import fnmatch
        import re

        tails = {p.rsplit("/", 1)[-1] for p in self.policy.secret_patterns}
        tails |= set(self.policy.secret_dirs)
        return re.compile("|".join(f"(?:{fnmatch.translate(t)})" for t in sorted(tails)),
                          re.IGNORECASE)

    def __call__(self, rel):
        from gateway import paths

        self.seen += 1
        if self.seen <= self.REGEX_AFTER:
            return paths.is_secret(("/" + rel,), self.policy)
        if self.rx is None:
            self.rx = self._regex()
        base = rel.rsplit("/", 1)[-1]
        maybe = self.memo.get(base)
        if maybe is None:
            maybe = any(self.rx.match(n) for n in self.names(base, self.policy))
            self.memo[base] = maybe
        dirs = self.policy.secret_dirs
        if not maybe and not any(part in dirs or part.lower() in dirs
                                 for part in rel.split("/")[:-1]):
            return ""
        return paths.is_secret(("/" + rel,), self.policy)


def _walk(policy, project, globs) -> list:
    is_secret = _Quick(policy)
    if globs is None:
        from gateway.sandbox.globs import secret_globs

        globs = [g for g, _r in secret_globs(policy)]
    seen = 0
    stack = [project]
    root = project.rstrip("/") + "/"
    out = []
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            return [f"{d!r} cannot be listed, so it cannot be checked for secrets"]
        for e in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return [f"the project holds more than {WALK_LIMIT} entries, too many to check "
                        "for secrets the sandbox does not hide"]
            rel = e.path[len(root):]
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and rel == ".git":
                continue  # the project's repository: its config and history checked above
            pat = is_secret(rel)
            if pat:
                if _covered(rel, globs):
                    continue  # hidden (a directory: with all below it)
                return [f"{rel!r} is a secret ({pat}), but no sandbox glob hides it (another "
                        "case, a backup suffix, or a rule the client's globs cannot say)"]
            if is_dir:
                stack.append(e.path)
            elif e.name.lower().endswith(_ARCHIVES):
                why = _archive(e.path, rel, policy)
                if why:
                    return [why]
    return out


def _archive(path, rel, policy) -> str:
    """Why the archive at `path` may hold a secret the sandbox cannot hide, or ""."""
    from gateway import paths

    try:
        size = os.path.getsize(path)
    except OSError:
        return f"the archive {rel!r} cannot be read to check it for secrets"
    if size > ARCHIVE_LIMIT:
        return (f"the archive {rel!r} is too big to list ({size} bytes), so it may hold a "
                "secret its readers print without unpacking it")
    names = None
    low = rel.lower()
    try:
        if low.endswith((".gz", ".bz2", ".xz", ".zst")) and not low.endswith(
                (".tar.gz", ".tar.bz2", ".tar.xz")):
            names = [rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]]  # one compressed file
        elif low.endswith((".zip", ".jar", ".war", ".whl")):
            import zipfile

            with zipfile.ZipFile(path) as z:
                names = z.namelist()
        elif ".tar" in low or low.endswith((".tgz", ".tbz2", ".txz")):
            import tarfile

            with tarfile.open(path) as t:
                names = t.getnames()
    except Exception:  # an archive that cannot be listed: fail closed
        names = None
    if names is None:
        return (f"the archive {rel!r} cannot be listed, so it may hold a secret its readers "
                "print without unpacking it")
    for n in names:
        pat = paths.is_secret(("/" + n.lstrip("/"),), policy)
        if pat:
            return (f"the archive {rel!r} holds the secret {n!r} ({pat}): a program reads "
                    "it without unpacking it, which the sandbox does not hide")
    return ""
