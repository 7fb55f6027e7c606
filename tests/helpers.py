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
