"""Test helpers: the sample project and the data-file loader."""

import os


def make_project(root) -> str:
    """A project with the shapes the cases need. Returns its real path."""
    root = os.path.realpath(str(root))
    files = {
        "scripts/foo.py": "print('x')\n",
        "scripts/run.sh": "echo run\n",
        "scripts/sub/bar.py": "",
        ".claude/hooks/h.sh": "",
        "src/app.py": "",
        "src/auth/login.py": "",
        "README.md": "# readme\n",
        "a.txt": "a\n",
        "file.txt": "f\n",
        ".env": "SECRET=1\n",
        ".env.example": "SECRET=\n",
        # the secrets hold lines that searches for TOKEN, KEY and SECRET match (a search
        # that reaches a secret asks only when a line of it matches: searchprobe.py);
        # .env.production parses as a git configuration file (git config --file)
        "config/.env.production": "[app]\n\tmode = TOKEN KEY SECRET\n",
        "keys/server.pem": "-----BEGIN PRIVATE KEY-----\nTOKEN KEY SECRET\n",
        "vendor/scripts/evil.sh": "",
        "node_modules/pkg/scripts/evil.sh": "",
        ".venv/bin/pytest": "",
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    os.makedirs(os.path.join(root, ".git", "hooks"), exist_ok=True)
    os.symlink("/etc", os.path.join(root, "lnk"))
    os.symlink("/tmp", os.path.join(root, "scripts", "tmplink"))
    os.symlink(os.path.join(root, "src", "app.py"), os.path.join(root, "scripts", "app_link.py"))
    os.symlink(os.path.join(root, ".env"), os.path.join(root, "notes.txt"))
    return root


def commit_paths(root, rels):
    """`git init` in `root` (when it is no repository yet) and commit `rels`, nothing else,
    with a fixed identity and no user or system configuration: files a human has seen
    (gateway.validator.trusted_code)."""
    import subprocess

    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)
    if not os.path.isdir(os.path.join(root, ".git", "objects")):
        subprocess.run(["git", "init", "-q", root], check=True, env=env)
    subprocess.run(["git", "-C", root, "add", "-f", "--", *rels], check=True, env=env)
    subprocess.run(["git", "-C", root, "commit", "-q", "--no-verify", "-m", "seen"],
                   check=True, env=env)


def make_committed_project(root) -> str:
    """The sample project (make_project) as a repository whose HEAD commit holds its
    contained scripts and its tools' configuration (code and configuration a human has
    seen), with an untracked script, a downloaded script, a Python virtual environment's
    site-packages and a .pth file beside them. Returns its real path."""
    root = make_project(root)
    files = {
        "downloads/run.sh": "touch \"$HOME/pwned-download\"\n",
        "scripts/untracked.sh": "echo untracked\n",
        "plugin.pth": "import os\n",
        ".venv/lib/python3.11/site-packages/pkg.py": "",
        "pyproject.toml": "[project]\nname = \"x\"\nversion = \"0\"\n",
        "package.json": '{"name": "x", "version": "1.0.0", "scripts": {"test": "echo ok"}}\n',
        "Makefile": "all:\n\techo ok\n",
        ".claude/settings.local": "{}\n",
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    commit_paths(root, ["scripts/foo.py", "scripts/run.sh", "scripts/sub/bar.py",
                        ".claude/hooks/h.sh", "pyproject.toml", "package.json", "Makefile",
                        "README.md", "src/app.py", "a.txt"])
    return root


def decode(text: str) -> str:
    """Decode the escapes of the TSV data files: \\\\ \\t \\n \\r \\uXXXX."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            simple = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            if n == "u" and i + 6 <= len(text):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
        out.append(c)
        i += 1
    return "".join(out)


DATA = os.path.join(os.path.dirname(__file__), "data")


def search_code(code: str) -> str:
    """A case's code as this machine must give it. `GW506~rg`: lines of a secret match
    (GW506), which the gateway learns by running ripgrep on the secrets (searchprobe); where
    ripgrep is not installed the probe cannot run and the search asks GW509 instead."""
    if code.endswith("~rg"):
        import shutil

        return code[:-3] if shutil.which("rg") else "GW509"
    return code


def load_cases(name: str):
    """Rows of tests/data/cases/<name>.tsv: command, decision, code, cwd, note.
    Lines starting with # are comments. Returns pytest params with readable ids."""
    import pytest

    rows = []
    with open(os.path.join(DATA, "cases", name + ".tsv"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                raise ValueError(f"{name}.tsv:{n}: need command, decision, code")
            parts += [""] * (5 - len(parts))
            command, decision, code, cwd, note = parts[:5]
            rows.append(pytest.param(decode(command), decision, search_code(code), cwd or None,
                                     id=f"{name}:{n}:{command[:40]}"))
    return rows
