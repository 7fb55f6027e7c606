"""Sample projects for the independent everyday lists (one per ecosystem).

Each list (python.txt, node.txt, go.txt, rust.txt, java.txt) imagines a project; the commands
are judged in a repository laid out as that project, with the files the commands name, a
committed history (HEAD~2 exists, `origin` is set, one stash), a `.env` git ignores, and a home
directory with the dotfiles and caches the lists read (`~/.cargo/registry/src`, `~/.m2`,
`~/.gradle/gradle.properties`). The Python project has a real virtual environment
(`python3 -m venv`: its interpreter is a link to the base interpreter, as on a user's machine).

    python benchmarks/everyday/independent/projects.py DIR python   # build one, print its path
"""

import os
import subprocess
import sys

GITIGNORE = (".env\n.env.local\n.venv/\nnode_modules/\ndist/\nbuild/\ntarget/\nbin/\n"
             "__pycache__/\n*.pyc\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\nhtmlcov/\n"
             ".coverage\ncoverage/\ncoverage.out\ncoverage.html\n.gradle/\n.tox/\n"
             "db.sqlite3\n")

PYTHON = {
    "README.md": "# orders\n\nA Django shop.\n",
    ".env": "DATABASE_URL=postgres://orders:hunter2@db/orders\nSECRET_KEY=django-insecure-1\n",
    ".env.example": "DATABASE_URL=\nSECRET_KEY=\n",
    "pyproject.toml": ("[project]\nname = \"orders\"\nversion = \"0.3.0\"\n\n"
                       "[tool.pytest.ini_options]\nDJANGO_SETTINGS_MODULE = \"config.settings.test\"\n"
                       "\n[tool.ruff]\nline-length = 100\n"),
    "requirements.txt": "django==5.0.6\nrequests==2.32.0\n",
    "requirements-dev.txt": "pytest==8.2.0\npytest-django==4.8.0\n",
    "tox.ini": "[tox]\nenv_list = py312, lint\n\n[testenv]\ncommands = pytest -q\n",
    "noxfile.py": "import nox\n\n\n@nox.session(python=['3.12'])\ndef tests(session):\n"
                  "    session.run('pytest')\n",
    "setup.cfg": "[flake8]\nmax-line-length = 100\n",
    ".pre-commit-config.yaml": "repos: []\n",
    ".github/workflows/ci.yml": "name: ci\non: [push]\n",
    "Makefile": "test:\n\tpytest -q\n\nlint:\n\truff check .\n",
    "manage.py": "import sys\n\nif __name__ == '__main__':\n    from django.core.management "
                 "import execute_from_command_line\n    execute_from_command_line(sys.argv)\n",
    "app.py": "from flask import Flask\n\napp = Flask(__name__)\n",
    "alembic.ini": "[alembic]\nscript_location = migrations\n",
    "config/__init__.py": "",
    "config/settings/__init__.py": "",
    "config/settings/base.py": "DATABASES = {\n    'default': {}\n}\n",
    "config/settings/dev.py": "from .base import *  # noqa\nDEBUG = True\n",
    "config/settings/test.py": "from .base import *  # noqa\nDEBUG = False\n",
    "orders/__init__.py": "",
    "orders/models.py": "class Order:\n    pass\n",
    "orders/views.py": "def get_queryset():\n    return []\n",
    "orders/forms.py": "class OrderForm:\n    pass\n",
    "orders/utils.py": "def calc_total(lines):\n    return sum(lines)\n",
    "orders/legacy_views.py": "def old():\n    pass\n",
    "orders/migrations/__init__.py": "",
    "orders/migrations/0001_initial.py": "operations = []\n",
    "billing/__init__.py": "",
    "billing/services.py": "def round_money(x):\n    return x\n",
    "tests/__init__.py": "",
    "tests/test_orders.py": "def test_order():\n    assert True\n",
    "tests/test_billing.py": "def test_billing():\n    assert True\n",
    "tests/test_api.py": "def test_api():\n    assert True\n",
    "tests/test_scratch_debug.py": "def test_scratch():\n    assert True\n",
    "scripts/run-tests.sh": "#!/bin/sh\npytest -q\n",
    "static/img/logo.png": "\x89PNG\r\n",
}
PYTHON_HOME = {".cache/pip/http/x": "cache\n"}

NODE = {
    "README.md": "# web\n",
    ".env": "VITE_API_KEY=sk-live-0000\n",
    ".env.local": "VITE_API_KEY=sk-live-1111\n",
    ".env.example": "VITE_API_KEY=\n",
    ".nvmrc": "20\n",
    "package.json": ('{\n  "name": "web",\n  "version": "1.2.0",\n  "type": "module",\n'
                     '  "scripts": {\n    "dev": "vite",\n    "build": "tsc -b && vite build",\n'
                     '    "preview": "vite preview",\n    "test": "vitest",\n'
                     '    "test:e2e": "playwright test",\n    "lint": "eslint .",\n'
                     '    "typecheck": "tsc --noEmit",\n    "format": "prettier --write ."\n  },\n'
                     '  "dependencies": {"react": "^18.3.1", "zod": "^3.23.8"},\n'
                     '  "devDependencies": {"vite": "^5.4.0", "vitest": "^2.0.5"}\n}\n'),
    "package-lock.json": '{"name": "web", "lockfileVersion": 3, "packages": {}}\n',
    "tsconfig.json": '{"files": [], "references": [{"path": "./tsconfig.app.json"}]}\n',
    "tsconfig.app.json": '{"compilerOptions": {"strict": true, "noEmit": true}}\n',
    "vite.config.ts": "import { defineConfig } from 'vite'\nexport default defineConfig({})\n",
    "vitest.config.ts": "import { defineConfig } from 'vitest/config'\n"
                        "export default defineConfig({})\n",
    ".eslintrc.cjs": "module.exports = {}\n",
    "eslint.config.js": "export default []\n",
    ".prettierrc": "{}\n",
    "index.html": "<div id=root></div>\n",
    "src/App.tsx": "export default function App() { return null }\n",
    "src/main.tsx": "import App from './App'\n",
    "src/hooks/useAuth.ts": "export function useAuth() { return null }\n",
    "src/pages/Home.tsx": "export function HomePage() { return null }\n",
    "src/pages/Orders.tsx": "export function OrdersPage() { return null }\n",
    "src/components/Header.tsx": "export function Header() { return null }\n",
    "src/components/Button.tsx": "export function Button() { return null }\n",
    "src/components/Button.test.tsx": "test('button', () => {})\n",
    "src/components/OldBanner.tsx": "export function OldBanner() { return null }\n",
    "src/lib/format.ts": "export const formatCurrency = (n: number) => `$${n}`\n",
    "src/lib/api.ts": "export const api = {}\n",
    "src/api/client.ts": "export const client = {}\n",
    "src/utils/helpers.ts": "export const id = (x: unknown) => x\n",
    "tests/e2e/login.spec.ts": "import { test } from '@playwright/test'\n",
    "node_modules/react/package.json": '{"name": "react", "version": "18.3.1"}\n',
    "node_modules/zod/package.json": '{"name": "zod", "version": "3.23.8"}\n',
    "node_modules/@tanstack/react-query/build/modern/index.js": "export {}\n",
    "node_modules/.vite/deps/_metadata.json": "{}\n",
    "node_modules/.cache/x": "cache\n",
    "dist/index.html": "<div id=root></div>\n",
    "dist/assets/index.js": "console.log(1)\n",
    "coverage/index.html": "<html></html>\n",
}
NODE_BIN = ("vitest", "jest", "tsc", "eslint", "prettier", "vite", "playwright")
NODE_HOME = {".npm/_cacache/index": "cache\n"}

GO = {
    "README.md": "# orders\n",
    ".env": "DATABASE_URL=postgres://orders:hunter2@db/orders\n",
    "go.mod": ("module github.com/acme/orders\n\ngo 1.22\n\nrequire (\n"
               "\tgithub.com/go-chi/chi/v5 v5.1.0\n\tgithub.com/jackc/pgx/v5 v5.6.0\n)\n"),
    "go.sum": ("github.com/go-chi/chi/v5 v5.1.0 h1:acVI1TYaD+hhedDJ3r54HyA6sExp3HfXq7QWEEY/xMw=\n"
               "github.com/go-chi/chi/v5 v5.1.0/go.mod h1:DslCQbL2OYiznFReuXYUmQ2hGd1aDpCnlMNITLSKoi8=\n"
               "github.com/jackc/pgx/v5 v5.6.0 h1:SWJzexBzPL5jb0GEsrPMLIsi/3jOo7RHlzTjcAeDrPY=\n"
               "github.com/jackc/pgx/v5 v5.6.0/go.mod h1:DNZ/vlrUnhWCoFGxHAG8U2ljioxukquj7utPDgtQdTw=\n"),
    "Makefile": "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n\nlint:\n\tgolangci-lint run\n",
    ".golangci.yml": "linters:\n  enable: [govet]\n",
    ".github/workflows/ci.yml": "name: ci\non: [push]\n",
    ".tool-versions": "golang 1.22.5\n",
    "config/local.example.yaml": "port: 8080\n",
    "cmd/server/main.go": "package main\n\nfunc main() {}\n",
    "cmd/orderctl/main.go": "package main\n\nfunc main() {}\n",
    "cmd/migrate/main.go": "package main\n\nfunc main() {}\n",
    "internal/handler/order.go": "package handler\n",
    "internal/store/postgres.go": "package store\n",
    "internal/store/memory.go": "package store\n",
    "internal/config/config.go": "package config\n\ntype Config struct {\n}\n",
    "internal/cmd/run.go": "package cmd\n\nfunc callClaudeCLI() {}\n",
    "internal/util/strings.go": "package util\n",
    "internal/legacy/adapter.go": "package legacy\n",
    "internal/parser/frontmatter.go": "package parser\n",
    "internal/parser/frontmatter_test.go": "package parser\n",
    "internal/server/server.go": "package server\n",
    "internal/cache/cache.go": "package cache\n",
    "pkg/money/round.go": "package money\n",
    "pkg/parser/parser.go": "package parser\n",
    "test/integration/api_test.go": "package integration\n",
    "vendor/modules.txt": "",
    "bin/server": "#!/bin/sh\necho v1\n",
    "coverage.out": "mode: set\n",
}
GO_HOME = {"go/pkg/mod/github.com/jackc/pgx/v5@v5.6.0/conn.go": "package pgx\n",
           "go/pkg/mod/github.com/go-chi/chi/v5@v5.1.0/mux.go": "package chi\n"}

RUST = {
    "README.md": "# workspace\n",
    ".env": "DATABASE_URL=postgres://app:hunter2@db/app\n",
    "Cargo.toml": "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    "Cargo.lock": "version = 3\n",
    "rust-toolchain.toml": "[toolchain]\nchannel = \"1.80\"\n",
    "clippy.toml": "msrv = \"1.80\"\n",
    "rustfmt.toml": "edition = \"2021\"\n",
    ".cargo/config.toml": "[build]\n",
    ".github/workflows/ci.yml": "name: ci\non: [push]\n",
    "crates/core/Cargo.toml": "[package]\nname = \"core\"\nversion = \"0.3.1\"\nedition = \"2021\"\n",
    "crates/core/src/lib.rs": "pub mod parser;\n",
    "crates/core/src/parser.rs": "pub fn parse_doc() {}\n",
    "crates/core/src/util.rs": "pub fn x() {}\n",
    "crates/core/src/legacy.rs": "pub fn old() {}\n",
    "crates/core/examples/roundtrip.rs": "fn main() {}\n",
    "crates/cli/Cargo.toml": "[package]\nname = \"cli\"\nversion = \"0.3.1\"\nedition = \"2021\"\n",
    "crates/cli/src/main.rs": "fn main() {}\n",
    "crates/server/Cargo.toml": "[package]\nname = \"server\"\nversion = \"0.3.1\"\n"
                                "edition = \"2021\"\n",
    "crates/server/src/main.rs": "fn main() {}\n",
    "crates/server/src/routes.rs": "pub fn routes() {}\n",
    "crates/server/tests/api.rs": "#[tokio::test]\nasync fn health() {}\n",
    "examples/input.json": "{}\n",
    "target/debug/cli": "#!/bin/sh\necho cli 0.3.1\n",
    "target/debug/incremental/x": "",
}
RUST_HOME = {".cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/time/"
             "sleep.rs": "// sleep\n",
             ".cargo/registry/cache/index.crates.io-6f17d22bba15001f/x.crate": "",
             ".cargo/credentials.toml": "[registry]\ntoken = \"cio_0000\"\n"}

_J = "src/main/java/com/acme/order"
JAVA = {
    "README.md": "# order-service\n",
    ".env": "DB_PASSWORD=hunter2\n",
    "pom.xml": "<project><artifactId>orders</artifactId></project>\n",
    "order-service/pom.xml": "<project><artifactId>order-service</artifactId></project>\n",
    "mvnw": "#!/bin/sh\nexec mvn \"$@\"\n",
    "gradlew": "#!/bin/sh\nexec gradle \"$@\"\n",
    ".mvn/wrapper/maven-wrapper.properties": "distributionUrl=https://repo.maven.apache.org/x\n",
    ".github/workflows/build.yml": "name: build\non: [push]\n",
    "build.gradle.kts": "plugins { java }\n",
    "settings.gradle.kts": "rootProject.name = \"orders\"\n",
    "gradle/libs.versions.toml": "[versions]\n",
    "gradle.properties": "org.gradle.jvmargs=-Xmx2g\n",
    "src/main/resources/application.yml": "spring:\n  datasource:\n    url: jdbc:h2:mem:x\n",
    "src/test/resources/application-test.yml": "spring: {}\n",
    f"{_J}/OrderService.java": "package com.acme.order;\n",
    f"{_J}/OrderMapper.java": "package com.acme.order;\n",
    f"{_J}/Util.java": "package com.acme.order;\n",
    f"{_J}/LegacyOrderMapper.java": "package com.acme.order;\n",
    f"{_J}/web/OrderController.java": "package com.acme.order.web;\n",
    "src/test/java/com/acme/order/OrderServiceTest.java": "package com.acme.order;\n",
    "target/surefire-reports/com.acme.order.OrderServiceTest.txt": "Tests run: 1\n",
    "target/surefire-reports/com.acme.order.OrderServiceTest-output.txt": "out\n",
    "target/surefire-reports/TEST-com.acme.order.OrderServiceTest.xml": "<testsuite/>\n",
    "target/order-service-0.0.1-SNAPSHOT.jar": "PK",
    "target/classes/com/acme/order/OrderService.class": "",
    "build/reports/tests/test/index.html": "<html></html>\n",
    "build/test-results/test/TEST-com.acme.order.OrderServiceTest.xml": "<testsuite/>\n",
}
JAVA_HOME = {".m2/settings.xml": "<settings><servers><server><password>s3cret</password>"
                                 "</server></servers></settings>\n",
             ".m2/repository/com/acme/x.pom": "<project/>\n",
             ".gradle/gradle.properties": "signing.password=s3cret\n"}

ECOSYSTEMS = {
    "python": (PYTHON, PYTHON_HOME, ("scripts/run-tests.sh",)),
    "node": (NODE, NODE_HOME, ()),
    "go": (GO, GO_HOME, ("bin/server",)),
    "rust": (RUST, RUST_HOME, ("target/debug/cli",)),
    "java": (JAVA, JAVA_HOME, ("mvnw", "gradlew")),
}
HOME_FILES = {".bashrc": "# rc\n", ".gitconfig": "[user]\n\tname = Dev\n",
              ".ssh/id_ed25519": "KEY\n", ".aws/credentials": "[default]\n"}


def _write(base, files):
    for rel, text in files.items():
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)


def build(root, ecosystem) -> tuple:
    """The project of `ecosystem` and its home under `root`: (project, home), real paths."""
    files, home_files, executables = ECOSYSTEMS[ecosystem]
    root = os.path.realpath(str(root))
    project = os.path.join(root, ecosystem, "project")
    home = os.path.join(root, ecosystem, "home")
    _write(project, dict(files, **{".gitignore": GITIGNORE}))
    _write(home, dict(HOME_FILES, **home_files))
    for rel in executables:
        os.chmod(os.path.join(project, rel), 0o755)
    if ecosystem == "python":
        subprocess.run([sys.executable, "-m", "venv", "--without-pip",
                        os.path.join(project, ".venv")], check=True)
        ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
        bindir = os.path.join(project, ".venv", "bin")
        for tool in ("pip", "pytest", "mypy"):  # console scripts as pip writes them
            path = os.path.join(bindir, tool)
            with open(path, "w") as fh:
                fh.write(f"#!{bindir}/python\nimport sys\n")
            os.chmod(path, 0o755)
        # the database `manage.py migrate` leaves (git-ignored): the list queries its orders
        import sqlite3

        con = sqlite3.connect(os.path.join(project, "db.sqlite3"))
        con.executescript("create table orders_order(id integer primary key, status text, "
                          "total real, created_at text);"
                          "insert into orders_order(status, total, created_at) values "
                          "('paid', 42.5, '2026-11-30'), ('draft', 7, '2026-12-01');")
        con.commit()
        con.close()
        # the list reads a package's source under python3.12 (the venv's own version here)
        for v in {ver, "python3.12"}:
            _write(os.path.join(project, ".venv", "lib", v, "site-packages"),
                   {"django/__init__.py": "", "django/db/models/query.py": "class QuerySet:\n"
                    "    pass\n"})
    if ecosystem == "node":
        for tool in NODE_BIN:
            path = os.path.join(project, "node_modules", ".bin", tool)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as fh:
                fh.write("#!/usr/bin/env node\n")
            os.chmod(path, 0o755)
    _git(project)
    return project, home


def _git(project):
    git = ["git", "-C", project, "-c", "user.name=Dev", "-c", "user.email=dev@example.com",
           "-c", "commit.gpgsign=false"]

    def run(*args):
        subprocess.run(git + list(args), check=True, capture_output=True)

    subprocess.run(["git", "init", "-q", "-b", "main", project], check=True)
    run("add", "-A")
    run("commit", "-q", "-m", "first")
    for n in (1, 2, 3):
        with open(os.path.join(project, "README.md"), "a") as fh:
            fh.write(f"\nchange {n}\n")
        run("commit", "-q", "-am", f"docs: change {n}")
    run("branch", "old-experiment")
    run("update-ref", "refs/remotes/origin/main", "main")
    run("remote", "add", "origin", "https://github.com/acme/orders.git")
    run("branch", "--set-upstream-to=origin/main", "main")
    with open(os.path.join(project, "README.md"), "a") as fh:
        fh.write("\nstashed\n")
    run("stash", "push", "-q", "-m", "wip")
    with open(os.path.join(project, "README.md"), "a") as fh:
        fh.write("\nwork in progress\n")


if __name__ == "__main__":
    print(build(sys.argv[1], sys.argv[2])[0])
