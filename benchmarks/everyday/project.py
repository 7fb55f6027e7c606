"""The sample project the everyday corpus runs in: a small Python + JS/TS + Go + Rust
repository with the files everyday commands name (tests, configs, a virtualenv layout, a
committed history), a `.env` that git ignores, and a home directory with the usual dotfiles.

    python benchmarks/everyday/project.py DIR    # build it in DIR (prints the project path)
"""

import os
import subprocess
import sys

FILES = {
    "README.md": "# shop\n\nA sample project.\n",
    "CHANGELOG.md": "## 0.1.0\n- first\n",
    ".gitignore": ".env\n.venv/\nnode_modules/\ndist/\nbuild/\ntarget/\n__pycache__/\n",
    ".env": "API_KEY=sk-live-0000\nSECRET=1\n",
    "config/.env.production": "SECRET=prod\n",
    "deploy/key.pem": "-----BEGIN PRIVATE KEY-----\n",
    ".env.example": "API_KEY=\n",
    "pyproject.toml": ("[project]\nname = \"shop\"\nversion = \"0.1.0\"\n\n"
                       "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n"
                       "[tool.ruff]\nline-length = 100\n"),
    "requirements.txt": "requests==2.32.0\n",
    "src/shop/__init__.py": "",
    "src/shop/app.py": "def main():\n    return 0\n",
    "src/shop/models.py": "class Item:\n    pass\n",
    "src/shop/utils.py": "def add(a, b):\n    return a + b\n",
    "tests/__init__.py": "",
    "tests/test_app.py": "from shop.app import main\n\n\ndef test_main():\n    assert main() == 0\n",
    "scripts/build.py": "print('built')\n",
    "scripts/release.sh": "echo release\n",
    "docs/index.md": "# Docs\n",
    "package.json": ('{"name": "web", "version": "1.0.0", "scripts": {"test": "vitest run", '
                     '"build": "tsc -p .", "lint": "eslint src", "dev": "vite", '
                     '"format": "prettier --write ."}}\n'),
    "package-lock.json": '{"name": "web", "lockfileVersion": 3, "packages": {}}\n',
    "tsconfig.json": '{"compilerOptions": {"strict": true, "outDir": "dist"}}\n',
    "web/index.ts": "export const x: number = 1;\n",
    "web/app.tsx": "export function App() { return null; }\n",
    "web/util.js": "module.exports = {};\n",
    "web/app.test.ts": "test('x', () => {});\n",
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "main.go": "package main\n\nfunc main() {}\n",
    "pkg/store/store.go": "package store\n",
    "pkg/store/store_test.go": "package store\n",
    "Cargo.toml": "[package]\nname = \"shop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    "crates/core/src/lib.rs": "pub fn f() {}\n",
    "Makefile": "test:\n\tpytest -q\n\nbuild:\n\tpython3 scripts/build.py\n",
    "Dockerfile": "FROM python:3.12\n",
    "config/settings.yaml": "debug: false\n",
    "data/sample.csv": "a,b\n1,2\n",
    "data/events.json": '{"events": []}\n',
    "logs/app.log": "INFO start\n",
    ".venv/bin/python": "",
    ".venv/lib/python3.12/site-packages/requests/__init__.py": "",
    "node_modules/.bin/eslint": "",
    "node_modules/.bin/tsc": "",
    "node_modules/.bin/vitest": "",
    "node_modules/.bin/prettier": "",
    # build, test and package tools (issue 13, helper C): a uv lock whose one package is
    # installed, a JS test file, a Go program the project installs as its pre-commit hook,
    # an installed jest
    "uv.lock": ('version = 1\nrequires-python = ">=3.11"\n\n[[package]]\nname = "requests"\n'
                'version = "2.32.0"\nsource = { registry = "https://pypi.org/simple" }\n\n'
                '[[package]]\nname = "shop"\nversion = "0.1.0"\nsource = { editable = "." }\n'),
    ".venv/lib/python3.12/site-packages/requests-2.32.0.dist-info/METADATA": "Name: requests\n",
    "node_modules/.bin/jest": "",
    "cmd/pre-commit/main.go": "package main\n\nfunc main() {}\n",
    "Cargo.lock": "version = 3\n",
}
HOME_FILES = {".bashrc": "# rc\n", ".gitconfig": "[user]\n\tname = Dev\n",
              ".ssh/id_ed25519": "KEY\n", ".aws/credentials": "[default]\n"}


def build(root) -> str:
    """The project (and a `home` beside it) under `root`; returns the project's real path."""
    root = os.path.realpath(str(root))
    project = os.path.join(root, "shop")
    for rel, text in FILES.items():
        path = os.path.join(project, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    for rel in (".venv/bin/python",):
        os.chmod(os.path.join(project, rel), 0o755)
    home = os.path.join(root, "home")
    for rel, text in HOME_FILES.items():
        path = os.path.join(home, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    git = ["git", "-C", project, "-c", "user.name=Dev", "-c", "user.email=dev@example.com",
           "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main", project], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "first"], check=True)
    subprocess.run(git + ["branch", "feature"], check=True)
    # uv.lock is newer than pyproject.toml, as after `uv lock`
    os.utime(os.path.join(project, "uv.lock"))
    with open(os.path.join(project, "src/shop/app.py"), "a") as fh:
        fh.write("# work in progress\n")
    return project


if __name__ == "__main__":
    print(build(sys.argv[1]))
