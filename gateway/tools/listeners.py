"""Who answers on a loopback port: the project's own server, or something else.

A request to this machine's loopback reaches whatever listens there, and the loopback is
not only the developer's dev server: `kubectl proxy` (8001) serves the cluster's API with
the user's credentials (GET /api/v1/secrets prints every secret), Docker's TCP socket
(2375) runs containers with the host's disk mounted, a browser's debugging port (9222)
opens pages, a Jupyter server runs code. So a request to the loopback is judged by the
process that listens on its port (Linux: /proc), at the time of the call:

* the listening socket is found in /proc/net/tcp and /proc/net/tcp6 (state LISTEN, bound
  to the loopback or to every address, on that port), and its process by the socket's inode
  among /proc/PID/fd (only the user's own processes can be read: a root daemon such as
  docker-proxy is never found, so never the project's);
* the process is the project's own server when its working directory is inside the project
  and it runs the project's code: its executable is a file of the project (`cargo run`'s
  target/debug/app), or it is an interpreter whose script (its first operand) is a file of
  the project (`python manage.py runserver`, `.venv/bin/flask run`, `node
  node_modules/.bin/vite`, `java -jar target/app.jar`), or `go run` of a package of the
  project; a word that merely names a project path is not enough (`python -m http.server
  -d .`, `socat ... ./fwd.log`: red team); or the same holds of the parent that started it
  there (`go run ./cmd/server` runs a binary from the build cache, started
  by go in the project; a reloader's worker).

Anything else is not known to be the project's: nothing listens (the request fails, but the
port may be taken by the time it runs), another user's or root's process, a process whose
command line names nothing of the project (`kubectl proxy`, `python -m http.server`), a
system without /proc, more processes or descriptors than the walk's bound. The caller asks.

Standard library only; a walk is bounded (PROCESS_LIMIT processes, FD_LIMIT descriptors).
"""

import os

PROCESS_LIMIT = 4096
FD_LIMIT = 8192
_LISTEN = "0A"
_LOOPBACK_OR_ANY = {"0100007F", "00000000",  # 127.0.0.1, 0.0.0.0 (tcp, little-endian)
                    "00000000000000000000000001000000",  # ::1
                    "00000000000000000000000000000000"}  # ::


def _inodes(port, proc="/proc"):
    """The inodes of the sockets listening on `port` on the loopback or every address, or
    None when the tables cannot be read."""
    found, read_any = set(), False
    for table in ("net/tcp", "net/tcp6"):
        try:
            with open(os.path.join(proc, table), encoding="ascii") as fh:
                lines = fh.read(1 << 22).splitlines()[1:]
        except (OSError, ValueError):
            continue
        read_any = True
        for line in lines:
            f = line.split()
            if len(f) < 10 or f[3] != _LISTEN:
                continue
            addr, _, hexport = f[1].partition(":")
            try:
                if int(hexport, 16) != port:
                    continue
            except ValueError:
                continue
            a = addr.upper()
            # 127.0.0.0/8 is "..7F" in the table's byte order; ::ffff:127.0.0.1 mapped
            if a in _LOOPBACK_OR_ANY or (len(a) == 8 and a.endswith("7F")) \
                    or a == "0000000000000000FFFF00000100007F":
                found.add(f[9])
    return found if read_any else None


def _owners(inodes, proc="/proc"):
    """{inode: PID} of the processes holding the socket `inodes` that this user can see;
    raises LookupError past the walk's bounds."""
    targets = {f"socket:[{i}]": i for i in inodes}
    found = {}
    try:
        pids = [p for p in os.listdir(proc) if p.isdigit()]
    except OSError:
        return found
    if len(pids) > PROCESS_LIMIT:
        raise LookupError(f"more than {PROCESS_LIMIT} processes")
    seen = 0
    for pid in pids:
        fd_dir = os.path.join(proc, pid, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue  # another user's, or gone
        seen += len(fds)
        if seen > FD_LIMIT * 8:
            raise LookupError("more open descriptors than the walk reads")
        for fd in fds[:FD_LIMIT]:
            try:
                inode = targets.get(os.readlink(os.path.join(fd_dir, fd)))
            except OSError:
                continue
            if inode is not None:
                found.setdefault(inode, int(pid))
        if len(found) == len(targets):
            break
    return found


def _process(pid, proc="/proc"):
    """(cwd, exe, argv, ppid) of `pid`, or None when it cannot be read."""
    base = os.path.join(proc, str(pid))
    try:
        cwd = os.readlink(os.path.join(base, "cwd"))
        exe = os.readlink(os.path.join(base, "exe"))
        with open(os.path.join(base, "cmdline"), "rb") as fh:
            argv = [a.decode("utf-8", "surrogateescape")
                    for a in fh.read(1 << 16).split(b"\0") if a]
        ppid = 0
        with open(os.path.join(base, "status"), encoding="utf-8", errors="replace") as fh:
            for line in fh.read(1 << 14).splitlines():
                if line.startswith("PPid:"):
                    ppid = int(line.split()[1])
                    break
    except (OSError, ValueError, IndexError):
        return None
    return cwd, exe, argv, ppid


def _inside(path, project) -> bool:
    return path == project or path.startswith(project.rstrip("/") + "/")


#: programs that run the script their first operand names (its options before it)
_INTERPRETERS = ("python", "node", "nodejs", "ruby", "perl", "php", "java", "deno", "bun",
                 "sh", "bash", "dash", "zsh")
#: options after which the program runs no script file of its own (code, a module)
_NO_SCRIPT = {"-c", "-e", "--eval", "-p", "--print", "-m", "-r", "--require", "-i",
              "--import", "--loader", "--experimental-loader"}
#: options that take the next word as their value
_VALUED = {"-W", "-X", "-cp", "-classpath", "--class-path", "-I", "-x", "--env-file"}


def _script(argv):
    """The script file an interpreter's command line runs (its first operand), or None
    when it runs code, a module, or nothing it names."""
    words = iter(argv[1:])
    for w in words:
        if w in _NO_SCRIPT or w.startswith(("--eval=", "--require=", "--import=")):
            return None
        if w in _VALUED:
            next(words, None)
            continue
        if w.startswith("-"):
            continue  # java's -jar: the jar is the next operand
        return w
    return None


def _is_interpreter(name) -> bool:
    base = os.path.basename(name)
    return any(base == i or (base.startswith(i) and base[len(i):].replace(".", "").isdigit())
               for i in _INTERPRETERS)


def _runs_project_code(cwd, exe, argv, project) -> bool:
    """The process runs from the project (its working directory) a program of the project:
    its executable (`cargo run`'s target/debug/app), the script its interpreter runs
    (`python manage.py`, `node node_modules/.bin/vite`, `java -jar target/app.jar`), or
    `go run` of a package of the project. A word that merely names a project path (`-d .`,
    a log file, a key) is not the program: `python -m http.server -d .` and `socat ...
    ./log` are not the project's server (red team)."""
    if not _inside(os.path.realpath(cwd), project):
        return False
    if _inside(os.path.realpath(exe), project):
        return True
    if not argv:
        return False

    def project_path(word, want_file=True):
        path = word if os.path.isabs(word) else os.path.join(cwd, word)
        ok = os.path.isfile(path) if want_file else os.path.exists(path)
        return ok and _inside(os.path.realpath(path), project)

    if os.path.basename(argv[0]) == "go" and argv[1:2] == ["run"]:
        operand = next((w for w in argv[2:] if not w.startswith("-")), None)
        return operand is not None and project_path(operand, want_file=False)
    if not (_is_interpreter(argv[0]) or _is_interpreter(exe)):
        return False
    script = _script(argv)
    return script is not None and project_path(script)


def projects_server(port, project_real, proc="/proc"):
    """None when the process listening on the loopback `port` is the project's own server
    (see the module docstring), else why it is not known to be."""
    inodes = _inodes(port, proc)
    if inodes is None:
        return "this system does not say which process listens on a port (no /proc/net/tcp)"
    if not inodes:
        return f"nothing listens on port {port} now"
    try:
        owners = _owners(inodes, proc)
    except LookupError as exc:
        return f"the process listening on port {port} cannot be found ({exc})"
    if len(owners) < len(inodes):
        return f"port {port} is served by a process of another user (a system service)"
    for pid in sorted(set(owners.values())):
        why = _not_projects(pid, port, project_real, proc)
        if why:
            return why
    return None


def _not_projects(pid, port, project_real, proc):
    info = _process(pid, proc)
    if info is None:
        return f"the process listening on port {port} (pid {pid}) cannot be read"
    cwd, exe, argv, ppid = info
    if _runs_project_code(cwd, exe, argv, project_real):
        return ""
    # the process that started it there (`go run ./cmd/server`, a reloader's worker)
    parent = _process(ppid, proc) if ppid > 1 else None
    if parent is not None and _inside(os.path.realpath(cwd), project_real) \
            and _runs_project_code(parent[0], parent[1], parent[2], project_real):
        return ""
    shown = " ".join(argv)[:120] or exe
    return f"port {port} is served by `{shown}` (pid {pid}), which does not run the " \
        "project's code from the project"
