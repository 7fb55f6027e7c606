"""The name grammar of secrets: is this path a secret by its name alone?

One answer for every caller (the validator's phases, the PreToolUse guards of every tool, the
sandbox configuration), from the rules' `secrets` (rules/default.yaml):

* `directories`: any component names a credential store (`.ssh`, `.aws`, `.gnupg`...): the
  path is a secret as a whole;
* `env_files`: the grammar of env files, applied to **every** component of the path (a file
  below `config/.env.d/` is one too): `.env`, `.envrc` and any name that begins with one of
  them and a separator (`.env.local`, `.env-prod`, `.env_ci`, `.envrc.local`), any name that
  ends in `.env` (`prod.env`), and `env.` + anything that is not source code or documentation
  (`env.local`, `env.json`; not alembic's `env.py` or Vite's `env.d.ts`). A name with a
  template word among its words (`.env.example`, `example.env`, `.env-sample.local`) holds
  names and sample values by design and is not one by its name; a directory that is a Python
  virtual environment (`python -m venv .env`: it holds `pyvenv.cfg`) is not one either;
* `patterns`: globs for keys, certificates, credential files and client histories; without
  "/" against the base name, with "/" against the trailing components, with "**" against any
  trailing part (`.git/**/config`);
* `exceptions` (the user's): base-name globs that are no secret (a directory still is);
* `backup_suffixes`: a copy keeps the credential (`.env.bak`, `id_rsa~`, vim's
  `.id_rsa.swp`): a name is judged with its suffixes taken off too.

Names decide only what they can: a file whose name says nothing may still hold a credential,
which is for the content scanner.
"""

import os

#: Editor swap files keep a dot in front of a name that had none (vim: `.id_rsa.swp`).
_SWAP_SUFFIXES = (".swp", ".swo", ".swn")
_SEPARATORS = ".-_"


class EnvGrammar:
    """rules' `secrets.env_files`, lower-cased, for the per-component test."""

    __slots__ = ("names", "prefixes", "suffixes", "plain_prefixes", "source_extensions",
                 "template_words")

    def __init__(self, data):
        data = data or {}

        def low(key):
            return tuple(str(x).lower() for x in data.get(key, ()) or ())

        self.names = frozenset(low("names"))
        self.prefixes = low("prefixes")
        self.suffixes = low("suffixes")
        self.plain_prefixes = low("plain_prefixes")
        self.source_extensions = low("source_extensions")
        self.template_words = frozenset(low("template_words"))

    def form(self, name: str) -> str:
        """The grammar's form `name` (one component) has as an env file ("" when none):
        ".env", ".env.*", "*.env", "env.*" ... Templates have none."""
        low = name.lower()
        if "env" not in low:
            return ""
        form = ""
        if low in self.names:
            form = low
        else:
            for p in self.prefixes:
                if low.startswith(p) and len(low) > len(p):
                    form = p + "*"
                    break
            else:
                for s in self.suffixes:
                    if low.endswith(s) and len(low) > len(s):
                        form = "*" + s
                        break
                else:
                    for p in self.plain_prefixes:
                        if low.startswith(p) and len(low) > len(p):
                            if any(low.endswith(x) for x in self.source_extensions):
                                return ""  # source code or documentation (env.py, env.d.ts)
                            form = p + "*"
                            break
        if not form:
            return ""
        if self.template_words and _words(low) & self.template_words:
            return ""  # a template: names and sample values, committed on purpose
        return form


def _words(low: str) -> set:
    out = set()
    word = []
    for c in low:
        if c in _SEPARATORS:
            if word:
                out.add("".join(word))
                word = []
        else:
            word.append(c)
    if word:
        out.add("".join(word))
    return out


def env_grammar(policy):
    """The policy's EnvGrammar, built once per policy object (None when it has none)."""
    cached = getattr(policy, "_gw_env_grammar", None)
    data = getattr(policy, "secret_env", None)
    if cached is not None and cached[0] is data:
        return cached[1]
    grammar = EnvGrammar(data) if data else None
    try:
        policy._gw_env_grammar = (data, grammar)
    except AttributeError:
        pass
    return grammar


def backup_names(base: str, policy) -> list:
    """`base` and the names it has once the rules' backup suffixes are taken off, one after
    another (`.env.bak` -> `.env`, `id_rsa.pem.orig~` -> `id_rsa.pem.orig` -> `id_rsa.pem`,
    vim's `.id_rsa.swp` -> `id_rsa`): a copy keeps the credential."""
    suffixes = getattr(policy, "secret_backup_suffixes", ())
    out = [base]
    name = base
    while suffixes:
        low = name.lower()
        suf = next((x for x in suffixes if low.endswith(x.lower()) and len(name) > len(x)),
                   None)
        if suf is None:
            break
        name = name[:-len(suf)]
        out.append(name)
        if suf.lower() in _SWAP_SUFFIXES and name.startswith(".") and len(name) > 1:
            out.append(name[1:])
    return out


def variants(p: str, policy) -> list:
    """`p` and `p` with its last component's backup suffixes taken off."""
    head, _, base = p.rstrip("/").rpartition("/")
    names = backup_names(base, policy) if base else [base]
    return [p] + [f"{head}/{n}" for n in names[1:] if n]


def _is_venv(parts, i) -> bool:
    """Component i of the absolute path `parts` is a Python virtual environment."""
    try:
        return os.path.isfile("/" + "/".join(parts[:i + 1]) + "/pyvenv.cfg")
    except (OSError, ValueError):
        return False


def env_component(parts, grammar) -> str:
    """The env-file form of a component of `parts` ("<form>" for the last one, "<form>/" for
    a directory that holds the path), or ""."""
    last = len(parts) - 1
    for i, comp in enumerate(parts):
        form = grammar.form(comp)
        if not form:
            continue
        if i == last:
            return form
        if not _is_venv(parts, i):
            return form + "/"
    return ""


def _secret_dirs(policy):
    """{lower-cased directory name: as the rules spell it}, built once per policy object."""
    dirs = policy.secret_dirs
    cached = getattr(policy, "_gw_secret_dirs", None)
    if cached is not None and cached[0] is dirs:
        return cached[1]
    table = {d.lower(): d for d in dirs}
    try:
        policy._gw_secret_dirs = (dirs, table)
    except AttributeError:
        pass
    return table


def classify(paths, policy, *, prefilter=None, glob_match=None) -> str:
    """The rule one of `paths` (absolute) is a secret by ("" when none): a secret
    directory ("<dir>/"), an env-file form (".env.*", "*.env", ".env.d/"...), or a pattern.
    `prefilter`/`glob_match` are gateway.paths' (passed in: no import cycle)."""
    grammar = env_grammar(policy)
    dirs = _secret_dirs(policy)
    exceptions = policy.secret_exceptions
    for p in [v for p0 in paths for v in variants(p0, policy)]:
        parts = [c for c in p.split("/") if c]
        if not parts:
            continue
        base = parts[-1]
        for d in parts:
            sd = dirs.get(d.lower())
            if sd is not None:
                return sd + "/"
        if grammar is not None and "env" in p.lower():
            form = env_component(parts, grammar)
            if form and (form.endswith("/")
                         or not any(glob_match(ex, base) for ex in exceptions)):
                return form
            if form:
                # the base name is excepted by the user: its directories may still be env
                # directories
                form = env_component(parts[:-1], grammar)
                if form:
                    return form + ("" if form.endswith("/") else "/")
                continue
        if prefilter is not None:
            groups = prefilter
            if not (any(len(parts) >= n and rx.match("/".join(parts[-n:])) is not None
                        for n, rx in groups if n)
                    or any(rx.match("/".join(parts[i:])) is not None
                           for n, rx in groups if not n for i in range(len(parts)))):
                continue
        if any(glob_match(ex, base) for ex in exceptions):
            continue
        for pat in policy.secret_patterns:
            if "**" in pat:
                if any(glob_match(pat, "/".join(parts[i:])) for i in range(len(parts))):
                    return pat
            elif "/" in pat:
                n = pat.count("/") + 1
                if len(parts) >= n and glob_match(pat, "/".join(parts[-n:])):
                    return pat
            elif glob_match(pat, base):
                return pat
    return ""
