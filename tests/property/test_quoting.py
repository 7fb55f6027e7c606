"""Quote-equivalence: spelling a word differently ('rm', \\rm, r''m, "r"m, $'\\x72m') never
changes a non-allow into allow.

Stronger, and exact: an argument respelled with quotes or escapes that bash removes is the
same argv, so the decision and the reason code do not change at all; a quoted or escaped
command name is GW303 (unless an earlier phase or a deny rule decides); ANSI-C and locale
quoting are GW203 wherever they appear.
"""

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK, DENY
from tests.property import strategies as S
from tests.property.conftest import budget
from tests.property.support import fill, show, tick

EARLY = frozenset({"S0", "1", "2"})  # phases that decide before phase 3 looks at the name


@st.composite
def argv_command(draw, project):
    """A simple command as argv, allowed or not."""
    kind = draw(st.sampled_from(["allowed", "allowed", "always_ask", "catastrophic",
                                 "outside", "secret", "unknown", "subcommand"]))
    if kind == "allowed":
        argv = draw(S.allowed_cmd).argv
    elif kind == "always_ask":
        argv = [draw(st.sampled_from(S.ALWAYS_ASK_SAMPLE))] + draw(
            st.lists(S.inside_path(), max_size=2))
    elif kind == "catastrophic":
        argv = draw(S.catastrophic())[0]
    elif kind == "outside":
        argv = [draw(st.sampled_from(["cat", "ls", "head", "wc"])), draw(S.outside_path())[0]]
    elif kind == "secret":
        argv = [draw(st.sampled_from(["cat", "grep -n x", "head"]))] + [
            draw(st.sampled_from(S.SECRET_PATHS))]
        argv = argv[0].split() + argv[1:]
    elif kind == "unknown":
        argv = ["frobnicate", draw(S.inside_path())]
    else:
        argv = draw(st.sampled_from([["git", "push"], ["git", "reset", "--hard"],
                                     ["git", "-C", ".", "push", "origin"],
                                     ["gh", "pr", "merge", "1"], ["git", "clean", "-fdx"],
                                     ["git", "branch", "-D", "main"]]))
    return [fill(a, project) for a in argv]


def _ansi_or_locale(spelling: str) -> bool:
    """Does bash see a `$'…'` or `$"…"` string in `spelling`? (`\\$'x'` is a literal dollar
    and a single-quoted string; `'$'"x"` is a quoted dollar.)"""
    i, n, dq = 0, len(spelling), False
    while i < n:
        c = spelling[i]
        if c == "\\":
            i += 2
            continue
        if dq:
            dq = c != '"'
        elif c == "'":
            i = spelling.index("'", i + 1)
        elif c == '"':
            dq = True
        elif c == "$" and spelling[i + 1:i + 2] in ("'", '"'):
            return True
        i += 1
    return False


@budget(300)
@given(data=st.data(), others=st.integers(0, 2))
def test_respelling_a_word(pjudge, data, others):
    tick("quoting: respelling one word")
    project = pjudge.project
    argv = data.draw(argv_command(project))
    segs = [[S.canonical(w) if i else w for i, w in enumerate(argv)]]
    segs += [[S.canonical(w) if i else w for i, w in enumerate(data.draw(S.allowed_cmd).argv)]
             for _ in range(others)]
    segs = [[fill(w, project) for w in seg] for seg in segs]
    ops = [data.draw(st.sampled_from([" && ", "; ", " | ", "\n"])) for _ in segs[1:]]
    before_text = S.assemble(segs, ops, None)
    before = pjudge(before_text)

    index = data.draw(st.integers(0, len(argv) - 1))
    plain = data.draw(st.booleans())
    styles = S.PLAIN_STYLES if plain else S.ALL_STYLES
    new = S.spell(argv[index], S.rng_of(data.draw(S.seeds.filter(bool))), styles)
    segs[0] = list(segs[0])
    segs[0][index] = new
    text = S.assemble(segs, ops, None)
    after = pjudge(text)
    why = f"{before_text!r} is {show(before)}; respelled {text!r} is {show(after)}"

    if before.decision is not ALLOW:
        assert after.decision is not ALLOW, why
    changed_spelling = new != segs[0][index] or new != argv[index]
    if _ansi_or_locale(new):
        # ANSI-C / locale quoting: not literal, never allowed; deny rules see the raw text
        assert after.decision is not ALLOW, why
        if before.decision is not DENY and before.phase not in EARLY:
            assert (after.decision, after.code) == (ASK, "GW203"), why
    elif index > 0:
        assert (after.decision, after.code) == (before.decision, before.code), why
    elif new != argv[0] and changed_spelling:
        if before.decision is DENY:
            assert (after.decision, after.code) == (DENY, "GW750"), why
        elif before.phase in EARLY:
            assert (after.decision, after.code) == (before.decision, before.code), why
        else:
            assert (after.decision, after.code) == (ASK, "GW303"), why
    else:
        assert (after.decision, after.code) == (before.decision, before.code), why


BYPASS_SPELLINGS = {
    "single quotes": lambda n: f"'{n}'",
    "double quotes": lambda n: f'"{n}"',
    "backslash": lambda n: "\\" + n,
    "empty-quote splice": lambda n: f"{n[0]}''{n[1:]}",
    "empty-dq splice": lambda n: f'{n[0]}""{n[1:]}',
    "partly quoted": lambda n: f"{n[0]}'{n[1:]}'",
    "first letter quoted": lambda n: f'"{n[0]}"{n[1:]}',
    "every letter escaped": lambda n: "".join("\\" + c for c in n),
}


@budget(120)
@given(name=st.sampled_from(["rm", "curl", "sudo", "python", "dd", "eval", "source", "npx",
                             "chmod", "git", "ls", "cat", "bash", "python3", "xargs", "env"]),
       spelling=st.sampled_from(sorted(BYPASS_SPELLINGS)),
       rest=st.sampled_from(["", " -rf x", " README.md", " push", " -c id", " scripts/foo.py",
                             " http://x", " /"]))
def test_a_quoted_command_name_is_never_allowed(pjudge, name, spelling, rest):
    """The seed's F-001 family: the command name written with quotes or escapes."""
    tick("quoting: quoted command names")
    word = BYPASS_SPELLINGS[spelling](name)
    text = word + rest
    v = pjudge(text)
    plain = pjudge(name + rest)
    assert v.decision is not ALLOW, f"{text!r}: {show(v)}"
    if plain.decision is DENY:
        assert (v.decision, v.code) == (DENY, "GW750"), f"{text!r}: {show(v)}"
    else:
        assert (v.decision, v.code) == (ASK, "GW303"), f"{text!r}: {show(v)}"
