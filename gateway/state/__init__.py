"""Session state of the breezing workflow (SPEC §6).

* ``store``  -- stdlib-only storage: atomic writes, flock locks with timeouts, strict bounded JSON
  reads, locked JSONL append/read/rotate, read-modify-write. Errors: ``StateError`` and subclasses.
* ``layout`` -- file names under ``<project>/.claude/state/``, cleanup lists, repair hints.
* ``fast``   -- stdlib-only views for the PreToolUse guards (roles, role markers, impl_mode, phase).
* ``models`` -- pydantic v2 models of every file (imports pydantic: keep off the hook path).
* ``files``  -- typed load/save with the models, and ``clean`` / ``validate`` / ``show``.

Importing this package imports nothing else (keep it that way: the hooks import ``fast``).
"""
