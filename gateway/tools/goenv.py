"""What `go env NAME` prints for Go's path variables, computed as Go computes it, never by
running go (issue 25).

`ls $(go env GOMODCACHE)/github.com/x` reads the module cache; running `go` in a hook could
download a toolchain (GOTOOLCHAIN) and is slow, so the value is modelled from the same
sources Go reads, in Go's order (cmd/go/internal/cfg):

1. the variable in the environment, when not empty;
2. the go env file: $GOENV (`off`: none), else os.UserConfigDir()/go/env
   ($XDG_CONFIG_HOME, which must be absolute, else $HOME/.config); `KEY=VALUE` lines, the
   last one of a key wins, a line not starting with A-Z is ignored;
3. $GOROOT/go.env, for a key the user's file does not set (GOROOT from 1-2, else the
   directory above the `bin/` of the `go` found on PATH);
4. Go's default: GOPATH $HOME/go; GOMODCACHE the first GOPATH entry + /pkg/mod; GOCACHE
   os.UserCacheDir()/go-build ($XDG_CACHE_HOME, absolute, else $HOME/.cache).

Only GOMODCACHE, GOCACHE and GOPATH are modelled (GOROOT depends on which toolchain runs).
Anything unusual -- a relative or empty value, a file that cannot be read, `off` -- is
unknown (None): the caller asks.
"""

import os
import posixpath

NAMES = ("GOMODCACHE", "GOCACHE", "GOPATH")
_MAX_FILE = 1 << 16


def _read_env_file(path):
    """{key: value} of a go env file, {} when it does not exist, None when it cannot be
    read as a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_mode & 0o170000 != 0o100000 or st.st_size > _MAX_FILE:
            return None
        data = os.read(fd, _MAX_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    out = {}
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        i = line.find("=")
        if i < 0 or not ("A" <= line[:1] <= "Z"):
            continue
        out[line[:i]] = line[i + 1:]
    return out


def _config_dir(env):
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg:
        return xdg if xdg.startswith("/") else None
    home = env.get("HOME", "")
    return posixpath.join(home, ".config") if home.startswith("/") else None


def _user_file(env):
    """The go env file's {key: value}; None when Go's own lookup would fail or it cannot be
    read."""
    path = env.get("GOENV", "")
    if path == "off":
        return {}
    if not path:
        cfg = _config_dir(env)
        if cfg is None:
            return None
        path = posixpath.join(cfg, "go", "env")
    return _read_env_file(path)


def go_binary(env):
    """The absolute path of the `go` the shell finds on PATH, or None (a relative PATH entry
    before it: what runs depends on the directory)."""
    for d in env.get("PATH", "").split(":"):
        if not d.startswith("/"):
            return None
        p = posixpath.join(d, "go")
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


class _Unknown(Exception):
    pass


def value(name, env):
    """What `go env NAME` prints (a normalised absolute path) for one of NAMES, or None."""
    try:
        return _value(name, env)
    except _Unknown:
        return None


def _value(name, env):
    if name not in NAMES:
        return None
    user = _user_file(env)
    if user is None:
        return None
    cache = {}

    def getenv(key):
        if env.get(key):
            return env[key]
        if key in user:
            return user[key]
        if "file" not in cache:
            cache["file"] = _goroot_file(env, user)
        if cache["file"] is None:
            raise _Unknown
        return cache["file"].get(key)

    if name == "GOCACHE":
        got = getenv("GOCACHE")
        if got is None or got == "":
            xdg = env.get("XDG_CACHE_HOME", "")
            if xdg:
                base = xdg if xdg.startswith("/") else None
            else:
                home = env.get("HOME", "")
                base = posixpath.join(home, ".cache") if home.startswith("/") else None
            got = posixpath.join(base, "go-build") if base else None
        return _absolute(got)
    gopath = getenv("GOPATH")
    if gopath is None or gopath == "":
        home = env.get("HOME", "")
        gopath = posixpath.join(home, "go") if home.startswith("/") else None
    if name == "GOPATH":
        if gopath is None or any(not _absolute(p) for p in gopath.split(":")):
            return None
        return gopath  # printed as set (GOMODCACHE below is cleaned by filepath.Join)
    got = getenv("GOMODCACHE")
    if got is None or got == "":
        first = gopath.split(":")[0] if gopath else ""
        got = posixpath.join(first, "pkg", "mod") if first else None
    return _absolute(got)


def _absolute(path):
    if not path or not path.startswith("/") or "\x00" in path:
        return None
    norm = posixpath.normpath(path)
    return "/" + norm.lstrip("/")


def _goroot_file(env, user):
    goroot = env.get("GOROOT") or user.get("GOROOT")
    if not goroot:
        go = go_binary(env)
        if go is None:
            return {}
        goroot = posixpath.dirname(posixpath.dirname(os.path.realpath(go)))
    if not goroot.startswith("/"):
        return None
    return _read_env_file(posixpath.join(goroot, "go.env"))
