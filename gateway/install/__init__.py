"""Registering the gateway in Claude Code's settings files, and taking it out again.

A library with no click: `gateway install`, `uninstall` and `doctor` (gateway/cli/) are thin
layers over it, and the tests call it directly.

  entries.py   what to register: one handler per implemented hook, read from the hook modules
  jsonfile.py  settings files: strict reading, the file's own formatting, atomic writes
  merge.py     adding and removing the gateway's handlers in a parsed settings object
  backup.py    backups, and the record of the file as it was before the gateway
  ops.py       install / uninstall: the above put together
  doctor.py    the checks behind `gateway doctor`
"""


class InstallError(Exception):
    """Something the user must fix before the settings can be changed (the message says what,
    where and how). `problem` is the message without what install and uninstall add about
    themselves ("nothing was changed"), for reports that are not about a change."""

    def __init__(self, message, problem=None):
        super().__init__(message)
        self.problem = problem or message
