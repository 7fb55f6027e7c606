"""What a command does, below the guards and the validator (docs/architecture.md): both
hooks read it, neither owns it.

* ``analysis``    the effects analysis of a Bash command: what it writes, runs, whether it
                  is read-only, whether git commits or pushes (a package: ``analyze``)
* ``files``       canonical write targets, escapes, the protected-path surface
                  (``Surface``), ``owns`` globs
* ``writes``      the writes of the file tools (Write, Edit, MultiEdit, NotebookEdit)
* ``writejudge``  the one judgement of a named write against the surface, for the
                  PreToolUse guards and the validator's written files
* ``workflowcmd`` a `gateway` workflow command read from rules/workflow.yaml

Standard library only (hook path); nothing here imports the guards or the validator.
"""
