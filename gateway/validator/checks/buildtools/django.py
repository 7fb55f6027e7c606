"""Django's management commands (django-admin, and the project's manage.py, which is
django-admin with the project's settings: gateway.validator.entry_scripts).

Part of gateway.validator.checks.buildtools (see its docstring)."""

import os

from gateway.validator.checks._common import PHASE
from gateway.validator.checks.buildtools._shared import _refuse, generic


def django_admin(ctx, spec, words, cwd):
    """`test` and `makemigrations`: the options against the entry's allowlist. A test label
    is a dotted module (text) or, with a slash or when it exists, a directory of tests: a path, which must stay
    inside the project (the tests there run). makemigrations writes new migration files into
    the project's apps: an edit (acceptEdits), unless --check or --dry-run (they only
    print)."""
    verdict, args, cands, written = generic(ctx, spec, words, positionals=False)
    if verdict is not None:
        return _refuse(verdict)
    # a label that names a file or directory (with a slash, or one that exists) is a path
    paths = [p for p in args.positionals
             if "/" in p or p.startswith(("~", ".")) or os.path.lexists(os.path.join(cwd, p))]
    sub = spec.name.split()[-1]
    if sub == "makemigrations" and not args.has("--check", "--dry-run") and not ctx.exposure:
        from gateway.validator import modes

        if not modes.accepts_edits(ctx.mode):
            return _refuse(ctx.ask(PHASE, "GW721", f"{spec.name} writes new migration files "
                                   f"into the project's apps; in {modes.normalize(ctx.mode)} "
                                   "mode edits are the human's (acceptEdits allows them "
                                   "inside the project; --check --dry-run only prints)",
                                   rule=f"catalogue:{spec.name}:edit"))
    return None, cands + paths, written
