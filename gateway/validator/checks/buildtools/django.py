"""Django's management commands (django-admin, and the project's manage.py, which is
django-admin with the project's settings: gateway.validator.entry_scripts).

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os

from gateway.validator.checks.buildtools._shared import _ask, _refuse, generic


def django_admin(ctx, spec, words, cwd):
    """`test` and `makemigrations`: the options against the entry's allowlist. A test label
    is a dotted module (text) or, with a slash or when it exists, a directory of tests: a
    path, which must stay inside the project (the tests there run). makemigrations writes the migration files
    Django generates from the project's models into its apps: content the project's own tool
    chooses, not the command line, so it runs in default mode too (docs/security.md, "Edits
    in default mode: one rule"), as `ruff format` and `pytest`'s caches do."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    module = ctx.env.get("DJANGO_SETTINGS_MODULE")
    if module:
        # manage.py only sets it when the environment does not (os.environ.setdefault)
        from gateway.validator.checks.buildtools.pytest import settings_module

        why = settings_module(ctx, module, cwd)
        if why:
            return _refuse(_ask(ctx, "GW761", spec.name, "DJANGO_SETTINGS_MODULE: " + why +
                                " (Django imports the settings module, running its code)"))
    # a label that names a file or directory (with a slash, or one that exists) is a path
    paths = [p for p in args.positionals
             if "/" in p or p.startswith(("~", ".")) or os.path.lexists(os.path.join(cwd, p))]
    return None, cands + paths, written
