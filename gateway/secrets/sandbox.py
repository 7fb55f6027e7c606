"""The secret names as the client's sandbox globs (`sandbox.filesystem.denyRead`).

The OS floor (issue 23) generates the client's sandbox configuration from the same data the
hooks decide by (gateway.secrets.names, rules/default.yaml `secrets`). A sandbox glob cannot
say everything the grammar says, so every glob comes with how it relates to the grammar:

* "exact"    the glob matches exactly the names the rule makes secrets;
* "broader"  it matches more (the grammar excepts templates, `env.py`, a virtual environment
             named `.env`): denying it in the sandbox also hides those names from commands,
             `allow` lists the templates to re-open where the client supports it;
* a rule no glob can say (a `**` pattern inside the path), or a file git itself reads on
  every command (a repository's `config`, where remote URLs may hold a token), is left to
  the hooks and listed in `hooks_only`.

`globs(policy)` gives root-relative globs (`**/.env`); `deny_read(policy, roots)` anchors them
at absolute roots the way the client reads them (`//<root>/**/.env`; measured in reference
§16: a relative pattern in user settings had no effect). Standard library only.
"""

from gateway.secrets.names import env_grammar


class Globs:
    """deny: [(glob, "exact" | "broader", rule)], allow: [glob], hooks_only: [rule]."""

    __slots__ = ("deny", "allow", "hooks_only")

    def __init__(self):
        self.deny = []
        self.allow = []
        self.hooks_only = []

    def as_dict(self) -> dict:
        return {"deny": [list(d) for d in self.deny], "allow": list(self.allow),
                "hooks_only": list(self.hooks_only)}


def globs(policy) -> Globs:
    """The secret rules of `policy` as root-relative sandbox globs."""
    out = Globs()
    seen = set()

    def deny(glob, kind, rule):
        if glob not in seen:
            seen.add(glob)
            out.deny.append((glob, kind, rule))

    for d in sorted(policy.secret_dirs):
        deny(f"**/{d}", "exact", f"{d}/")
    grammar = env_grammar(policy)
    if grammar is not None:
        templated = bool(grammar.template_words)
        for name in sorted(grammar.names):
            # broader: a virtual environment may have the name (`python -m venv .env`)
            deny(f"**/{name}", "broader", name)
            # a directory with the name holds env files (a virtual environment excepted)
            deny(f"**/{name}/**", "broader", f"{name}/")
        for p in grammar.prefixes:
            deny(f"**/{p}*", "broader" if templated else "exact", f"{p}*")
        for s in grammar.suffixes:
            deny(f"**/*{s}", "broader" if templated else "exact", f"*{s}")
        for p in grammar.plain_prefixes:
            deny(f"**/{p}*", "broader", f"{p}*")
        for name in sorted(grammar.names):
            for word in sorted(grammar.template_words):
                out.allow.append(f"**/{name}.{word}")
    for pat in policy.secret_patterns:
        if "**" in pat or _git_reads_it(pat):
            out.hooks_only.append(pat)
            continue
        deny(f"**/{pat}", "exact", pat)
    for ex in policy.secret_exceptions:
        if "/" not in ex:
            out.allow.append(f"**/{ex}")
    return out


def _git_reads_it(pat: str) -> bool:
    """git reads the file on every command (a repository's config): hiding it from the
    sandbox would break git, so the hooks alone judge what prints it (a place, GW742)."""
    parts = pat.lower().split("/")
    return any(p == ".git" or p.endswith(".git") for p in parts[:-1]) \
        or parts[-1] == "config.worktree"


def deny_read(policy, roots) -> dict:
    """{"denyRead": [...], "allowRead": [...]} for absolute `roots` (the project, the home
    directory): each root-relative glob anchored as `//<root>/<glob>`."""
    g = globs(policy)
    anchored = []
    allowed = []
    for root in roots:
        if not root.startswith("/"):
            raise ValueError(f"{root!r} is not an absolute path")
        base = "/" + root.rstrip("/")  # `//` starts an absolute path in the client's globs
        anchored.extend(f"{base}/{glob}" for glob, _kind, _rule in g.deny)
        allowed.extend(f"{base}/{glob}" for glob in g.allow)
    return {"denyRead": list(dict.fromkeys(anchored)),
            "allowRead": list(dict.fromkeys(allowed))}
