"""curl to this machine's own loopback: the developer's dev server (issue 25).

curl stays on the ALWAYS_ASK floor; its catalogue entry (`check: curl`) lets this check
judge the one form the gateway models (gateway.tools.curl): every URL on the loopback,
every option one of the allowlist. Then:

* the files it reads (`-d @FILE`, `-H @FILE`, `-w @FILE`) are path candidates, judged as
  every read is (phase 5: inside the project, no secret);
* a file it writes (`-o FILE`, `-D FILE`; `-` and /dev/null are none) is an edit: asked
  outside acceptEdits (GW721), judged as a write of that path in acceptEdits;
* plan mode: a request that may change the server (a method other than GET/HEAD, data) is
  not read-only (the effects analysis reads the same model: GW720).

Anything else asks with the real reason: a URL that is not the loopback or cannot be read
for certain (GW790), an option the model does not judge (GW791), a curl configuration file
the user keeps that may add URLs and options unseen (GW791; `curl -q` reads none). Both
codes are the floor's: a permissions.allow rule does not vouch for them in the PreToolUse
hook (gateway.validator.vouched).
"""

import os

from gateway.tools import curl as model
from gateway.validator.checks._common import PHASE


def curl(ctx, spec, words, cwd):
    label = spec.name
    rule = f"catalogue:{label}"
    req = model.parse(words)
    if req.refusal is not None:
        kind, why = req.refusal
        if kind == "url":
            return ctx.ask(PHASE, "GW790", f"{why}; curl is judged only when every URL is "
                           "this machine's loopback", rule=f"{rule}:url"), [], []
        return ctx.ask(PHASE, "GW791", why, rule=f"{rule}:option"), [], []
    if not words or words[0] not in ("-q", "--disable"):
        found = configuration(ctx.env)
        if found:
            return ctx.ask(PHASE, "GW791", f"curl reads {found!r} first, and a configuration "
                           "file may add URLs and options (url =, proxy, location) the "
                           "gateway does not see; write `curl -q ...` to run without it",
                           rule=f"{rule}:config"), [], []
    writes = list(req.writes)
    if writes and not ctx.exposure:
        from gateway.validator import modes

        if not modes.accepts_edits(ctx.mode):
            return ctx.ask(PHASE, "GW721", f"curl writes {writes[0]!r} (-o/-D); in "
                           f"{modes.normalize(ctx.mode)} mode edits are the human's "
                           "(acceptEdits allows them inside the project; -o /dev/null "
                           "writes nothing)", rule=f"{rule}:edit"), [], []
    if ctx.exposure:
        writes = []
    hosts = ", ".join(dict.fromkeys(req.urls))
    what = f"contacts only this machine's loopback ({hosts})" if hosts else \
        "is given no URL and reads no configuration file: it contacts nothing"
    if req.reads:
        what += "; it sends " + ", ".join(repr(r) for r in req.reads) + " (read inside the " \
            "project, no secret)"
    if writes:
        what += "; it writes " + ", ".join(repr(w) for w in writes)
    if req.changes:
        what += f"; {req.changes}"

    def allowed():
        return ctx.allow("7D", "GW700", f"curl {what}", rule=rule)

    return None, list(req.reads) + writes, writes, allowed


def configuration(env) -> str:
    """The curl configuration file curl reads before its options (curl 7.88's search:
    $CURL_HOME/.curlrc, $XDG_CONFIG_HOME/curlrc, $HOME/.curlrc, with the _curlrc spellings
    it also tries), or ""."""
    places = []
    for var, names in (("CURL_HOME", (".curlrc", "_curlrc")),
                       ("XDG_CONFIG_HOME", ("curlrc", ".curlrc", "_curlrc")),
                       ("HOME", (".curlrc", "_curlrc", ".config/curlrc"))):
        base = env.get(var)
        if base:
            places.extend(os.path.join(base, n) for n in names)
    for p in places:
        if os.path.lexists(p):
            return p
    return ""
