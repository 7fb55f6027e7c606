"""Names a command writes that it never spells: the names its options derive from the ones it
is given. Both hooks judge them as writes (the effects analysis records them; the validator's
archive check adds them to the members it extracts).

* Backups (GNU coreutils cp, mv, ln, install; GNU tar): `-b`/`--backup[=CONTROL]` or a
  suffix option alone (`-S SUF`, `--suffix=SUF`: measured, it turns backups on) moves the
  file a destination replaces to NAME+SUFFIX (`simple`) or NAME.~N~ (`numbered`); CONTROL
  `existing`/`nil` (the default) is either one. The suffix comes from the option, else
  $SIMPLE_BACKUP_SUFFIX, else `~`; a suffix with a `/` is `~` (coreutils); CONTROL comes
  from the option, else $VERSION_CONTROL. `none`/`off` makes no backup.
* `sed -i[SUFFIX]` / `--in-place=SUFFIX`: the backup of FILE is FILE+SUFFIX, or, when SUFFIX
  holds `*`, SUFFIX with every `*` replaced by FILE's base name, placed in FILE's directory
  (`sed -i'../bak/*.json' d/f` writes bak/f.json; measured with GNU sed 4.9).

Standard library only: the hook imports it.
"""

import posixpath

#: CONTROL words (and the unique prefixes GNU's argmatch accepts for them).
_SIMPLE = ("simple", "never")
_NUMBERED = ("numbered", "t")
_EXISTING = ("existing", "nil")
_NONE = ("none", "off")


def _control(word):
    """"simple", "numbered", "existing", "none" or None (not a valid CONTROL: the command
    fails, or the judgement should assume the widest)."""
    for kind, names in (("simple", _SIMPLE), ("numbered", _NUMBERED),
                        ("existing", _EXISTING), ("none", _NONE)):
        if word in names:
            return kind
    matches = {kind for kind, names in (("simple", _SIMPLE), ("numbered", _NUMBERED),
                                        ("existing", _EXISTING), ("none", _NONE))
               for n in names if word and n.startswith(word)}
    return matches.pop() if len(matches) == 1 else None


def backup_suffixes(backup, controls, suffixes, env):
    """The suffixes backups get, [] when the command makes none.

    `backup`: a `-b` or `--backup` was given; `controls`: the values of `--backup=CONTROL`;
    `suffixes`: the values of the suffix option (the last one counts); `env`: the command's
    environment. A numbered backup is represented by `.~1~` (its number depends on what is
    on disk)."""
    if not (backup or controls or suffixes):
        return []
    control = controls[-1] if controls else (env.get("VERSION_CONTROL") or "existing")
    kind = _control(control)
    if kind == "none":
        return []
    suffix = suffixes[-1] if suffixes else (env.get("SIMPLE_BACKUP_SUFFIX") or "~")
    if not suffix or "/" in suffix:
        suffix = "~"
    out = []
    if kind in ("simple", "existing", None):
        out.append(suffix)
    if kind in ("numbered", "existing", None):
        out.append(".~1~")
    return out


def sed_backup(path, suffix):
    """Where `sed -i SUFFIX` puts the backup of `path` (as written), or None for no
    backup (an empty suffix)."""
    if not suffix:
        return None
    if "*" not in suffix:
        return path + suffix
    base = posixpath.basename(path)
    name = suffix.replace("*", base)
    head = posixpath.dirname(path)
    return posixpath.join(head, name) if head else name
