"""The secrets of the policy as the client's sandbox paths: the project's globs, the home
directory's credential stores, the client's own credentials. `gateway install` writes them
(gateway.sandbox.spec) and the PreToolUse hook checks that the effective settings hold them
all (gateway.sandbox.posture): one function for both. Standard library only.
"""

import os


def secret_globs(policy) -> list:
    """[(root-relative glob, the rule it says)] for the secrets of `policy`.

    The secret-name grammar (issue 24) gives them when it is there
    (gateway.secrets.sandbox); otherwise every `secrets.directories` name and every
    `secrets.patterns` entry becomes `**/<pattern>`. A pattern with `**` inside it, or a file
    git reads on every command (a repository's config: hiding it would break git), stays with
    the hooks alone."""
    try:
        from gateway.secrets import sandbox as grammar  # issue 24's one module, when present
    except ImportError:
        grammar = None
    if grammar is not None and hasattr(grammar, "globs"):
        return [(g, rule) for g, _kind, rule in grammar.globs(policy).deny]
    out = []
    for d in sorted(policy.secret_dirs):
        out.append((f"**/{d}", f"{d}/"))
    for pat in policy.secret_patterns:
        if "**" in pat or _git_reads_it(pat) or _below_secret_dir(pat, policy):
            continue
        out.append((f"**/{pat}", pat))
    seen = set()
    return [(g, r) for g, r in out if not (g in seen or seen.add(g))]


def _below_secret_dir(pat, policy) -> bool:
    """`.aws/credentials` lies in `.aws`, which is hidden whole."""
    dirs = {d.lower() for d in policy.secret_dirs}
    return any(part.lower() in dirs for part in pat.split("/")[:-1])


def template_globs(policy) -> list:
    """Root-relative globs of names the rules say are not secrets although a deny glob
    covers them (templates: `**/.env.example`), for `allowRead` (measured: a project's
    allowRead re-opens below its own denyRead, globs included). From the secret grammar
    (issue 24) when it is there, else the exceptions without a directory."""
    try:
        from gateway.secrets import sandbox as grammar
    except ImportError:
        grammar = None
    if grammar is not None and hasattr(grammar, "globs"):
        return list(dict.fromkeys(grammar.globs(policy).allow))
    return [f"**/{ex}" for ex in policy.secret_exceptions if "/" not in ex]


def hooks_only_secrets(policy) -> list:
    """The secret patterns no sandbox glob covers (left to the hooks)."""
    return [p for p in policy.secret_patterns if "**" in p or _git_reads_it(p)]


def _git_reads_it(pat: str) -> bool:
    parts = pat.lower().split("/")
    return any(p == ".git" or p.endswith(".git") for p in parts[:-1]) \
        or parts[-1] == "config.worktree"


_GLOB_CHARS = frozenset("*?[")


def home_secrets(policy) -> list:
    """[(~/path, rule)]: where the secrets of the policy lie in a home directory, as concrete
    paths (a glob under ~ would walk the whole home directory on every Bash call).

    A directory name (`.ssh`) and a plain name (`.netrc`) are taken at the home's top; a
    name with a directory (`gh/hosts.yml`) at the top and under ~/.config (XDG). Patterns
    with wildcards (`*.pem`) are left to the hooks outside the project."""
    out = []
    for d in sorted(policy.secret_dirs):
        out.append((f"~/{d}", f"{d}/"))
    for pat in policy.secret_patterns:
        if any(c in _GLOB_CHARS for c in pat) or _git_reads_it(pat) \
                or _below_secret_dir(pat, policy):
            continue
        out.append((f"~/{pat}", pat))
        if "/" in pat and not pat.startswith("."):
            out.append((f"~/.config/{pat}", pat))
    seen = set()
    return [(p, r) for p, r in out if not (p in seen or seen.add(p))]


def client_credentials(env) -> list:
    """The client's own credential file: ~/.claude/.credentials.json (or under
    $CLAUDE_CONFIG_DIR)."""
    explicit = env.get("CLAUDE_CONFIG_DIR")
    if explicit:
        return [home_form(os.path.join(explicit, ".credentials.json"), env)]
    return ["~/.claude/.credentials.json"]


def home_form(path, env) -> str:
    """`~/x` for a path in the home directory, else `//abs` (the client's absolute form)."""
    import posixpath

    home = posixpath.normpath(env.get("HOME") or os.path.expanduser("~"))
    path = posixpath.normpath(os.path.abspath(path))
    if path.startswith(home + "/"):
        return "~/" + path[len(home) + 1:]
    return "/" + path


