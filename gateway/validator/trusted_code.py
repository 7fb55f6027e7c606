"""Trusted project code is code a human has seen.

Phase 6 lets a script under the project's containment directories (scripts/, .claude/hooks/)
run without a dialog: it is the project's own code, which the user runs too. That holds only
for the code the project has: a script the agent wrote, moved, copied or changed (in this
command, earlier in the session, or ever since the last commit) is code nobody has looked
at, as unknown as `python3 -c`. So a contained script runs without a dialog only when its
content is exactly what the repository's HEAD commit holds at that path: its blob id
(computed here from the file's bytes) equals the one `git cat-file --batch-check` gives for
`HEAD:<path>` (asked in the hardened way of tools/gitquery.py: no fsmonitor, no pager, no
network, a timeout). Not tracked, changed, no repository, not readable, larger than 1 MiB,
or git cannot answer: ask (GW782).
"""

import os

PHASE = "6"
CODE = "GW782"
MAX_BYTES = 1 << 20


def check(ctx, script, res, d):
    """None when the script at `res` (gateway.paths.Resolved) is the HEAD commit's, else the
    ask verdict."""
    why = unseen(res.real, ctx.roots.project_real)
    if why is None:
        ctx.step(PHASE, "pass", "", f"{script!r} is tracked and unchanged from HEAD")
        return None
    return ctx.ask(PHASE, CODE, f"{script!r} is in the project's {d}/, but {why}: it is not "
                   "code a human has seen (a contained script runs unasked only as the "
                   "repository's HEAD commit holds it). Read it, then run it yourself or "
                   "approve it; commit it if it is meant to be the project's",
                   rule=f"trusted_code:{d}")


def recipe(ctx, label, path, what):
    """The ask for a tool that runs the commands a project file holds as the project's own
    code (`make`: the Makefile's recipes, `npm test`: package.json's scripts) when that file
    (`path`, absolute) is not the HEAD commit's; None when it is, or does not exist."""
    from gateway.paths import lexical
    from gateway.validator import state_model

    real = os.path.realpath(path)
    # what the tool runs is this file as the whole command leaves it: an earlier part that
    # writes it (under any name: make -f mk) makes this part ask (state_model, GW781)
    state_model.note_script(ctx, path, lexical(path, ctx.cwd), real)
    why = unseen(real, ctx.roots.project_real)
    if why is None:
        return None
    return ctx.ask(PHASE, CODE, f"{label} runs the commands of {path} ({what}) as the "
                   f"project's own code, but {why}: they are not code a human has seen. "
                   "Read them, then approve it; commit the file if it is meant to be the "
                   "project's", rule=f"trusted_code:{os.path.basename(path)}")


def _work_tree(path):
    """(work tree root, git directory) of the repository holding `path`, or None: the
    nearest directory above it with a `.git` (a directory that is a repository, or a file
    naming one)."""
    from gateway.tools.gitindex import is_git_dir

    d = os.path.dirname(path)
    while True:
        dotgit = os.path.join(d, ".git")
        if os.path.isdir(dotgit) and is_git_dir(dotgit):
            return d, dotgit
        if os.path.isfile(dotgit):
            try:
                with open(dotgit, encoding="utf-8", errors="replace") as fh:
                    line = fh.readline().strip()
            except OSError:
                return None
            if not line.startswith("gitdir:"):
                return None
            return d, os.path.normpath(os.path.join(d, line[7:].strip()))
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _content(path):
    """The file's bytes (a regular file, at most MAX_BYTES), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or st.st_size > MAX_BYTES:
            return None
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            if sum(len(c) for c in chunks) > MAX_BYTES:
                return None
        return b"".join(chunks)
    finally:
        os.close(fd)


def blob_id(data, hex_len):
    """git's object id of a blob with these bytes (SHA-1, or SHA-256 for 64 hex digits)."""
    import hashlib

    algo = hashlib.sha256 if hex_len == 64 else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()


def unseen(path, project):
    """Why the file at `path` (every symlink resolved) is not the HEAD commit's, or None.
    The repository must be the project's own (at its root or above it: a monorepo): one
    made inside the project (`scripts/.git`) vouches for nothing."""
    if not os.path.lexists(path):
        return None  # nothing runs (an earlier part creating it: state_model asks)
    found = _work_tree(path)
    if found is None:
        return "the project has no git repository that tracks it"
    top, git_dir = found
    if not (project == top or project.startswith(top.rstrip("/") + "/")):
        return f"the repository that holds it ({top}) is inside the project, not the " \
            "project's own"
    rel = os.path.relpath(path, top)
    if rel.startswith("..") or "\n" in rel or rel == ".":
        return "it is not inside the repository's work tree"
    data = _content(path)
    if data is None:
        return "it is not a regular file of at most 1 MiB that can be read"
    from gateway.tools import gitquery as _gitquery

    out = _gitquery.run(top, git_dir, ["cat-file", "--batch-check"],
                        stdin=f"HEAD:{rel}\n".encode())
    if out is None:
        return "git could not say what the HEAD commit holds there"
    line = out.decode("utf-8", "replace").strip()
    parts = line.split()
    if len(parts) != 3 or parts[1] != "blob":
        return "the repository's HEAD commit does not track it (a new file)"
    if blob_id(data, len(parts[0])) != parts[0]:
        return "it differs from the repository's HEAD commit (changed since, by the agent " \
            "or anyone)"
    return None
