"""The verdict on the files a tool reads: does any hold a credential? (gateway.secrets.content
is the scanner and its cache.) A file is judged by its members' names and contents when it is
a container (gateway.secrets.members), else by the scanner, whose verdicts are cached by the
file's identity. Read by both hooks (the validator's phase 5 and git checks, the guards'
reads, the tree walk of gateway.tools.recursive, the sandbox's floor).

Above content, blobs and members, which it reads: none of them imports it.
"""

import os

from gateway.secrets import content


def check(paths, policy, env=None, *, wait=True):
    """The first content.Verdict among `paths` (absolute) that is not clean - SECRET (the
    scanner found a credential), UNSCANNED (too big, not scanned in time, no trustworthy
    cache) - or None when every one that is a regular file is clean."""
    found = verdicts(paths, policy, env, wait=wait, first=True)
    return found[0] if found else None


def verdicts(paths, policy, env=None, *, wait=True, first=False):
    """Every content.Verdict among `paths` that is not clean (with `first`: at most one), in
    order: the files the scanner found a credential in, and those it could not scan."""
    conf = content.settings(policy)
    if conf is None:
        return []
    plugins, max_bytes, timeout, full_exts = conf
    out = []
    todo = []
    import stat as _stat

    for p in dict.fromkeys(paths):
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            continue  # nothing there to read
        if not _stat.S_ISREG(st.st_mode) or st.st_size == 0:
            continue
        if st.st_size > max_bytes:
            out.append(content.Verdict(content.UNSCANNED, p, f"{st.st_size} bytes, over the "
                                       f"scanner's limit of {max_bytes} "
                                       "(secrets.content.max_bytes)"))
            if first:
                return out
            continue
        todo.append((p, st))
    if not todo:
        return out
    root = content.scan_root(env)
    skey = content.scanner_key(plugins)
    entry_dir = os.path.join(root, skey)
    trusted = content._own_dir(root) and (not os.path.lexists(entry_dir)
                                          or content._own_dir(entry_dir))
    misses = []
    for p, st in todo:
        ident = content.identity(st)
        hit = content.cached(entry_dir, ident) if trusted else None
        if hit is None:
            member = content.container_secret(p, policy)
            if member:
                if trusted:
                    content.write_entry(entry_dir, ident, content.SECRET, member)
                out.append(content.Verdict(content.SECRET, p, member))
                if first:
                    return out
                continue
            # the members' contents (an archived deploy/settings.ini, a gzipped key):
            # gateway.secrets.members; a clean archive is then scanned and cached as a file
            from gateway.secrets import members

            inner = members.verdict(p, policy, env)
            if inner is not None:
                if inner.kind == content.SECRET and trusted:
                    content.write_entry(entry_dir, ident, content.SECRET, inner.detail)
                out.append(content.Verdict(inner.kind, p, inner.detail))
                if first:
                    return out
                continue
            misses.append((p, st, ident))
        elif hit[0] == content.SECRET:
            out.append(content.Verdict(content.SECRET, p, hit[1]))
            if first:
                return out
    if not misses:
        return out
    pre = content._prefilter(root, skey) if trusted else None
    scan = []
    for p, st, ident in misses:
        if pre is not None and not p.lower().endswith(full_exts):
            text = content._text(p, st, max_bytes)
            if text is not None and not any(rx.search(text) for rx in pre):
                content.write_entry(entry_dir, ident, content.CLEAN)
                continue
        scan.append(p)
    if not scan:
        return out
    if wait:
        content._run_worker(scan, plugins, root, skey, timeout, env)
    for p in scan:
        try:
            st = os.stat(p)
        except OSError:
            continue
        hit = (content.cached(entry_dir, content.identity(st)) if content._own_dir(root)
               else None)
        if hit is None:
            out.append(content.Verdict(content.UNSCANNED, p, f"not scanned within {timeout:g} "
                                       "s (the scanner goes on in the background: try again "
                                       "in a moment)"))
        elif hit[0] == content.SECRET:
            out.append(content.Verdict(content.SECRET, p, hit[1]))
        else:
            continue
        if first:
            return out
    return out
