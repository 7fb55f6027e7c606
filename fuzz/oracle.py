"""The fuzz harnesses' independent oracle: what a Bash command certainly does, read the way
bash reads it, and which of those things the spec says are never auto-allowed.

Nothing here imports gateway: it is a small bash lexer of its own (quotes, escapes, line
continuations, comments, operators, redirections, `$` forms) that stops, making no further
claim, wherever it would have to model more of bash than that (here-documents, `[[`, `((`,
reserved words, a `(` it cannot place). It must be *sound*: it may miss dangers (the
property suite and the gateway's own tests cover far more), but it never claims a danger
where bash sees none, so a failure it reports is a real disagreement with the spec.

Claims (each is "must not be allowed", a few are "must be denied"):

text      NUL; control characters other than tab/newline; Unicode whitespace and invisible
          format characters (spec phase S0/1)
syntax    unquoted or double-quoted command substitution `$(...)` / backticks (except the
          quoted here-document fed to `cat`, the commit form the spec allows), arithmetic
          `$((...))` / `$[...]`, parameter expansion `$X`, `${...}`, special parameters,
          ANSI-C quoting `$'...'`, process substitution `<(...)` / `>(...)`, a subshell `(`
          in command position, compound commands (if/for/while/until/case/select/function,
          `{`, `[[`, `((`), an assignment in command position, an output redirection to a
          file other than /dev/null and the standard streams, tilde `~` / `~/...`, globs
          `*` `?` `[...]`, brace expansion `{a,b}` (spec phase 2)
commands  a command of the floor ALWAYS_ASK list (sudo, rm, curl, dd, ...) in any segment,
          also behind plain wrappers (nice, timeout, env, command, nohup); `git push`;
          a pipe into a shell or interpreter that reads its program from stdin (spec §3)
paths     a file read by cat/wc/head/tail/tac/*sum whose real path is outside the project
          or is a secret (.env, keys), and the same for `< file` (spec phase 5, secrets)
deny      `rm` with a recursive flag on `/`, run first (spec: catastrophic commands)

Entry point: `claims(text, cwd, project)` -> Claims.
"""

from __future__ import annotations

import os
import posixpath
import unicodedata

# --- claims ---------------------------------------------------------------------------------


#: Claim kinds the gateway now judges itself by expanding the word as bash would (issue 13:
#: globs and braces against the file system, parameters whose values are no secret), each
#: checked against bash by the property suite (tests/property/test_globs.py and friends): the
#: fuzzers do not count them against an allow.
JUDGED_EXPANSIONS = frozenset(("glob", "brace expansion", "parameter expansion",
                               "special parameter",
                               # and the constructs it models since issue 13's round 19
                               # (tests/property/test_shell_state.py checks them against bash):
                               # a for loop, unrolled; assignments as the last command of the
                               # text, which reach no command
                               "for loop", "final assignment"))


class Claims:
    """What the oracle is sure of. `no_allow`: [(kind, detail)]; `deny`: [(kind, detail)];
    `stopped`: why it stopped reading (None when it read everything)."""

    __slots__ = ("no_allow", "deny", "stopped", "segments", "certain_text")

    def __init__(self):
        self.no_allow = []
        self.deny = []
        self.stopped = None
        self.segments = []  # [Segment] the simple commands read (all of them, if not stopped)
        self.certain_text = ""  # the text the deny claims rest on (bash runs it as a whole)

    def add(self, kind, detail):
        self.no_allow.append((kind, detail))

    def without(self, skip) -> Claims:
        """A copy without the claims `skip(kind)` is true for (open gateway bugs)."""
        out = Claims()
        out.no_allow = [c for c in self.no_allow if not skip(c[0])]
        out.deny = [c for c in self.deny if not skip(c[0])]
        out.stopped = self.stopped
        out.segments = self.segments
        out.certain_text = self.certain_text
        return out

    def __bool__(self):
        return bool(self.no_allow or self.deny)

    def describe(self) -> str:
        parts = [f"deny: {k} ({d})" for k, d in self.deny]
        parts += [f"{k} ({d})" for k, d in self.no_allow]
        return "; ".join(parts) or "nothing"


class Word:
    __slots__ = ("raw", "value", "quoted", "expanded", "glob", "start")

    def __init__(self, start):
        self.raw = []  # the characters as written
        self.value = []  # after quote removal
        self.quoted = False  # some part was quoted or escaped
        self.expanded = False  # holds an expansion we claimed (value is not exact)
        self.glob = False  # holds an unquoted glob character
        self.start = start

    def text(self):
        return "".join(self.value)

    def rawtext(self):
        return "".join(self.raw)


class Segment:
    """One simple command: its words, its redirections, the operator before it."""

    __slots__ = ("words", "redirects", "op_before", "first")

    def __init__(self, op_before, first):
        self.words = []
        self.redirects = []  # (op, Word)
        self.op_before = op_before
        self.first = first  # runs unconditionally, first (the text's first command)


# --- characters -----------------------------------------------------------------------------

_ALLOWED_CONTROL = "\t\n"


def _char_claim(text):
    for i, ch in enumerate(text):
        if ch == "\x00":
            return "NUL", f"offset {i}"
        if (ch < " " and ch not in _ALLOWED_CONTROL) or "\x7f" <= ch <= "\x9f":
            return "control character", f"U+{ord(ch):04X} at offset {i}"
        if ord(ch) > 0x7F:
            cat = unicodedata.category(ch)
            if (cat == "Zs" and ch != " ") or cat in ("Zl", "Zp", "Cf"):
                return "invisible or Unicode whitespace", f"U+{ord(ch):04X} at offset {i}"
    return None


# --- the lexer ------------------------------------------------------------------------------

_BLANK = " \t"
_META = " \t\n|&;()<>"
_NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_NAME = _NAME_START + "0123456789"
_SPECIAL_PARAMS = "@*#?$!-0123456789"
_RESERVED = frozenset("if then else elif fi case esac for select while until do done "
                      "function coproc { } [[ ]]".split())
_COMPOUND_STARTS = frozenset("if case for select while until function coproc { [[".split())
_STREAMS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
_SAFE_TARGET = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+,:@%")


class _Stop(Exception):
    """The lexer reached something it does not model: no further claims."""


class _Lexer:
    def __init__(self, text, out: Claims):
        self.t = text
        self.n = len(text)
        self.i = 0
        self.out = out
        self.cmd_pos = True  # the next word is in command position
        self.seg = Segment(None, True)
        self.word = None
        self.pending_redirect = None  # the operator waiting for its target word
        # bash runs a script line by line: the segments before the last newline that ended a
        # complete command list run whatever comes after (even a syntax error)
        self.complete_segments = 0
        self.complete_pos = 0

    # -- low level

    def peek(self, k=0):
        """The character k logical positions ahead, skipping backslash-newline pairs
        (bash removes them before it tokenises, outside single quotes and comments)."""
        j = self.i
        while True:
            while j + 1 < self.n and self.t[j] == "\\" and self.t[j + 1] == "\n":
                j += 2
            if k == 0:
                return self.t[j] if j < self.n else ""
            j += 1
            k -= 1

    def advance(self, k=1):
        for _ in range(k):
            while self.i + 1 < self.n and self.t[self.i] == "\\" and self.t[self.i + 1] == "\n":
                self.i += 2
            self.i += 1

    def startword(self):
        if self.word is None:
            self.word = Word(self.i)

    def put(self, raw, value=None, quoted=False):
        self.startword()
        self.word.raw.append(raw)
        self.word.value.append(raw if value is None else value)
        if quoted:
            self.word.quoted = True

    # -- words and operators

    def endword(self):
        w = self.word
        if w is None:
            return
        self.word = None
        if self.pending_redirect is not None:
            op = self.pending_redirect
            self.pending_redirect = None
            self.redirect_target(op, w)
            return
        if self.cmd_pos and not w.quoted and not w.expanded:
            raw = w.rawtext()
            if raw in _COMPOUND_STARTS:
                self.out.add("for loop" if raw == "for" else "compound command", raw)
                raise _Stop(f"reserved word {raw}")
            if raw in _RESERVED:
                raise _Stop(f"reserved word {raw}")
        if self.cmd_pos and _is_assignment(w):
            kind = "assignment after a redirection" if self.seg.redirects else "assignment"
            if self.seg.redirects or w.quoted or w.expanded or not _inert(w.rawtext()):
                self.out.add(kind, w.rawtext())
        else:
            self.cmd_pos = False
            self.word_claims(w)
        self.seg.words.append(w)

    def word_claims(self, w):
        raw = w.rawtext()
        if "~" in raw:
            w.expanded = True  # tilde forms (~+, ~user, a=~/x) are not read here: no exact value
        if w.glob:
            self.out.add("glob", raw)
        if raw[:1] == "~" and (len(raw) == 1 or raw[1] == "/") and not w.quoted:
            self.out.add("tilde expansion", raw)
        elif raw[:1] == "~" and (len(raw) == 1 or raw[1] == "/"):
            pass  # "~"/x or \~ : quoted, literal
        if _brace_expansion(w):
            self.out.add("brace expansion", raw)

    def redirect_target(self, op, w):
        self.seg.redirects.append((op, w))
        if "~" in w.rawtext():
            w.expanded = True
        if op in (">&", "<&"):
            raw = w.rawtext()
            if (op == ">&" and not w.quoted and not w.expanded and raw
                    and all(c in _SAFE_TARGET for c in raw) and not raw.rstrip("-").isdigit()
                    and raw != "-" and raw not in _STREAMS and not raw.startswith("/dev/fd/")):
                self.out.add("output redirection", f">&{raw}")
            return
        if op in (">", ">>", ">|", "&>", "&>>", "<>"):
            raw = w.rawtext()
            if (not w.quoted and not w.expanded and raw and all(c in _SAFE_TARGET for c in raw)
                    and raw not in _STREAMS and not raw.startswith("/dev/fd/")):
                self.out.add("output redirection", f"{op} {raw}")

    def endseg(self, op):
        """End the current simple command at operator `op` (None: the end of the text)."""
        self.endword()
        if self.pending_redirect is not None:
            raise _Stop("redirection without a target")
        if not (self.seg.words or self.seg.redirects):
            # an empty command: fine before a newline (also after && || |, which continue
            # on the next line); a syntax error before any other operator or at the end
            # after && || |
            if op not in ("\n", None):
                raise _Stop(f"syntax error: no command before {op}")
            if op is None and self.seg.op_before in ("&&", "||", "|"):
                raise _Stop(f"syntax error: {self.seg.op_before} at the end")
            if op is None:
                self.final_assignments()
            return
        # a command of assignments only: its claims, should it be the last of the text
        self.only_assignments = (len(self.out.no_allow), len(self.seg.words)) \
            if self.cmd_pos and not self.seg.redirects else None
        if op is None:
            self.final_assignments()
        self.out.segments.append(self.seg)
        if op == "\n":
            self.complete_segments = len(self.out.segments)
            self.complete_pos = self.i
        self.seg = Segment(op, False)
        self.cmd_pos = True

    def final_assignments(self):
        """The last command of the text sets variables only: they reach no command (the
        validator allows it, GW219): its assignment claims are judged ones."""
        last = getattr(self, "only_assignments", None)
        if last is None:
            return
        end, k = last
        for i in range(end - 1, -1, -1):
            if k and self.out.no_allow[i][0] == "assignment":
                self.out.no_allow[i] = ("final assignment", self.out.no_allow[i][1])
                k -= 1

    # -- the main loop

    def run(self):
        while True:
            while self.i + 1 < self.n and self.t[self.i] == "\\" and self.t[self.i + 1] == "\n":
                self.i += 2  # a line continuation is nothing at all
            c = self.t[self.i] if self.i < self.n else ""
            if c == "":
                self.endseg(None)
                return
            if c in _BLANK:
                self.endword()
                self.advance()
                continue
            if c == "\n":
                self.endseg("\n")
                self.advance()
                continue
            if c == "#" and self.word is None:
                # a comment runs to the end of the line, continuations included
                j = self.t.find("\n", self.i)
                self.i = self.n if j < 0 else j
                continue
            if c in "|&;()<>":
                self.operator(c)
                continue
            if c == "-" and self.word is None and self.pending_redirect in (">&", "<&"):
                # `>&-x` / `<& -x`: bash takes the "-" alone (close the descriptor) and
                # starts a new word with what follows
                self.put("-")
                self.advance()
                self.endword()
                continue
            self.wordchar(c)

    def operator(self, c):
        two = c + self.peek(1)
        three = two + self.peek(2)
        if c in "<>":
            # an fd number glued before the operator belongs to it (2>x)
            if self.word is not None and self.word.rawtext().isdigit() and not self.word.quoted:
                self.word = None
            self.endword()
            if self.pending_redirect is not None:
                raise _Stop("redirection without a target")  # `>& >x`: a syntax error
            if self.peek(1) == "(":
                self.out.add("process substitution", c + "(")
                raise _Stop("process substitution")
            if three == "<<<":
                self.advance(3)
                self.pending_redirect = "<<<"
                return
            if two == "<<":
                raise _Stop("here-document")
            for op in (">>", ">|", ">&", "<&", "<>"):
                if two == op:
                    self.advance(2)
                    self.pending_redirect = op
                    return
            self.advance()
            self.pending_redirect = c
            return
        self.endword()
        if self.pending_redirect is not None:
            raise _Stop("redirection without a target")
        if c == "&":
            if two == "&&":
                self.advance(2)
                self.endseg("&&")
                return
            if three == "&>>":
                self.advance(3)
                self.pending_redirect = "&>>"
                return
            if two == "&>":
                self.advance(2)
                self.pending_redirect = "&>"
                return
            self.advance()
            self.endseg("&")
            return
        if c == "|":
            if two == "||":
                self.advance(2)
                self.endseg("||")
                return
            self.advance(2 if two == "|&" else 1)
            self.endseg("|")
            return
        if c == ";":
            if two == ";;" or two == ";&":
                raise _Stop("case terminator")
            self.advance()
            self.endseg(";")
            return
        if c == "(":
            if self.cmd_pos and not self.seg.words:
                if self.peek(1) == "(":
                    self.out.add("compound command", "((")
                    raise _Stop("arithmetic command")
                self.out.add("subshell", "(")
                raise _Stop("subshell")
            if (len(self.seg.words) == 1 and not self.seg.redirects
                    and self.peek(1) == ")"):
                self.out.add("compound command", "function definition")
                raise _Stop("function definition")
            raise _Stop("( outside command position")
        raise _Stop(") outside a subshell")

    def wordchar(self, c):
        if c == "\\":
            nxt = self.t[self.i + 1] if self.i + 1 < self.n else ""
            if nxt == "":
                self.put("\\")
                self.i += 1
                return
            self.put("\\" + nxt, nxt, quoted=True)
            self.i += 2
            return
        if c == "'":
            j = self.t.find("'", self.i + 1)
            if j < 0:
                raise _Stop("unterminated single quote")
            body = self.t[self.i + 1:j]
            self.put(self.t[self.i:j + 1], body, quoted=True)
            self.i = j + 1
            return
        if c == '"':
            self.double_quoted()
            return
        if c == "`":
            self.out.add("command substitution", "backtick")
            raise _Stop("backtick")
        if c == "$":
            self.dollar(in_dq=False)
            return
        self.startword()
        if c in "*?":
            self.word.glob = True
        if c == "[" and self._bracket_closes():
            self.word.glob = True
        self.put(c)
        self.advance()

    def _bracket_closes(self):
        """An unquoted `[` with an unquoted `]` later in the same word: a glob bracket."""
        j = self.i + 1
        while j < self.n:
            ch = self.t[j]
            if ch in _META or ch in "'\"\\`$":
                return False
            if ch == "]":
                return j > self.i + 1
            j += 1
        return False

    def double_quoted(self):
        self.startword()
        self.word.quoted = True
        self.word.raw.append('"')
        self.i += 1
        while True:
            if self.i >= self.n:
                raise _Stop("unterminated double quote")
            c = self.t[self.i]
            if c == '"':
                self.word.raw.append('"')
                self.i += 1
                return
            if c == "\\":
                nxt = self.t[self.i + 1] if self.i + 1 < self.n else ""
                if nxt == "\n":
                    self.i += 2
                    continue
                if nxt in '$`"\\':
                    self.word.raw.append("\\" + nxt)
                    self.word.value.append(nxt)
                    self.i += 2
                    continue
                self.word.raw.append("\\")
                self.word.value.append("\\")
                self.i += 1
                continue
            if c == "`":
                self.out.add("command substitution", "backtick in double quotes")
                raise _Stop("backtick")
            if c == "$":
                self.dollar(in_dq=True)
                continue
            self.word.raw.append(c)
            self.word.value.append(c)
            self.i += 1

    def dollar(self, in_dq):
        self.startword()
        nxt = self.peek(1)
        if nxt == "(":
            if self.peek(2) == "(":
                self.out.add("arithmetic expansion", "$((")
                raise _Stop("arithmetic")
            # the commit form: "$(cat <<'EOF' ... EOF)" is literal text the spec allows
            rest = self.t[self.i + 2:self.i + 80].replace("\\\n", "").lstrip(" \t\n")
            if rest.startswith("cat") and rest[3:].lstrip(" \t").startswith("<<"):
                raise _Stop("here-document fed to cat")
            self.out.add("command substitution", "$(")
            raise _Stop("command substitution")
        if nxt == "[":
            self.out.add("arithmetic expansion", "$[")
            raise _Stop("arithmetic")
        if nxt == "{":
            self.out.add("parameter expansion", "${")
            raise _Stop("parameter expansion")
        if nxt and nxt in _NAME_START:
            self.out.add("parameter expansion", "$" + nxt)
            self.word.expanded = True
            start = self.i
            self.advance(2)
            while self.peek() and self.peek() in _NAME:
                self.advance()
            self.word.raw.append(self.t[start:self.i])
            return
        if nxt and nxt in _SPECIAL_PARAMS:
            self.out.add("special parameter", "$" + nxt)
            self.word.expanded = True
            start = self.i
            self.advance(2)
            self.word.raw.append(self.t[start:self.i])
            return
        if nxt == "'" and not in_dq:
            self.out.add("ANSI-C quoting", "$'")
            raise _Stop("ANSI-C quoting")
        if nxt == '"' and not in_dq:
            raise _Stop("locale quoting")
        # a lone $ is literal
        if in_dq:
            self.word.raw.append("$")
            self.word.value.append("$")
            self.i += 1
        else:
            self.put("$")
            self.advance()


_INERT = []


def _inert(raw) -> bool:
    """NAME=VALUE of the rules' inert_env (rules/default.yaml: a variable that changes no
    program's reads, writes or code, with a plain literal value the list allows)."""
    if not _INERT:
        import yaml

        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, "rules", "default.yaml"), encoding="utf-8") as fh:
            _INERT.append(yaml.safe_load(fh).get("inert_env") or {})
    name, _, value = raw.partition("=")
    allowed = _INERT[0].get(name)
    if not allowed or name.endswith("+") or not value or value.startswith("-"):
        return False
    if any(c not in _PLAIN_VALUE for c in value):
        return False
    return "*" in allowed or value in [str(a) for a in allowed]


# as the rules' inert_env reads a value (gateway/validator/phase2_syntax.py): `=` and an inner
# `-` are part of env_logger's syntax (RUST_LOG=my_crate=debug, RUST_LOG=tower-http=warn)
_PLAIN_VALUE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:=-")


def _is_assignment(w) -> bool:
    raw = w.rawtext()
    if not raw or raw[0] not in _NAME_START:
        return False
    j = 0
    while j < len(raw) and raw[j] in _NAME:
        j += 1
    return raw[j:j + 1] == "=" or raw[j:j + 2] == "+="


def _brace_expansion(w) -> bool:
    """{a,b} written unquoted inside one word (the comma form only)."""
    raw = w.rawtext()
    if "{" not in raw or w.quoted and any(q in raw for q in "'\"\\"):
        return False
    depth_start = raw.find("{")
    while depth_start >= 0:
        end = raw.find("}", depth_start)
        if end < 0:
            return False
        inner = raw[depth_start + 1:end]
        if "," in inner and not any(ch in inner for ch in "{$`'\"\\ \t"):
            if depth_start == 0 or raw[depth_start - 1] != "$":
                return True
        depth_start = raw.find("{", depth_start + 1)
    return False


# --- argv-level claims ----------------------------------------------------------------------

#: The built-in rules' floor ALWAYS_ASK list: a project layer can never remove these.
FLOOR = frozenset(("sudo", "su", "doas", "rm", "rmdir", "eval", "exec", "curl", "wget", "dd",
                   "shred"))
_SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")
_INTERPRETERS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl",
                           "ruby", "node"))
_READERS = frozenset(("cat", "wc", "head", "tail", "tac", "md5sum", "sha1sum", "sha256sum",
                      "sha512sum"))
#: Options of the readers that take the next word as their value (long ones also as
#: --opt=value, short ones also glued or at the end of a cluster: -qn 5).
_READER_VALUE_FLAGS = {
    "head": ("n", "c", "--lines", "--bytes"),
    "tail": ("n", "c", "s", "--lines", "--bytes", "--pid", "--sleep-interval",
             "--max-unchanged-stats"),
    "tac": ("s", "--separator"),
}
_SECRET_NAMES = frozenset((".env", ".env.local", ".env.production", ".env.development",
                           ".env.staging", ".env.test", "id_rsa", "id_dsa", "id_ecdsa",
                           "id_ed25519", ".netrc", ".git-credentials"))
_SECRET_SUFFIXES = (".pem", ".key")


def _name(word: str):
    """The program a command word runs when it names a system program, else None."""
    if "/" not in word:
        return word
    for d in _SYSTEM_BIN:
        if word.startswith(d) and "/" not in word[len(d):]:
            return word[len(d):]
    return None


def _strip_wrappers(argv):
    """argv without leading wrappers that simply run the rest (nice, timeout, env, command,
    nohup, sudo with plain options). None when a wrapper's options are not plain."""
    i = 0
    while i < len(argv):
        name = _name(argv[i])
        if name == "nohup":
            i += 1
        elif name == "command":
            i += 1
            while i < len(argv) and argv[i] in ("-p", "--"):
                i += 1
            if i < len(argv) and argv[i].startswith("-"):
                return None  # command -v / -V only looks the name up
        elif name == "nice":
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                a = argv[i]
                if a == "-n":
                    i += 2
                elif a == "--":
                    i += 1
                    break
                elif a[1:].lstrip("-").isdigit() or (a.startswith("-n") and a[2:].lstrip(
                        "-").isdigit()) or a.startswith("--adjustment="):
                    i += 1
                else:
                    return None
        elif name == "timeout":
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                a = argv[i]
                if a in ("-s", "-k"):
                    i += 2
                elif a in ("--foreground", "--preserve-status", "-v", "--verbose") or \
                        a.startswith(("--signal=", "--kill-after=")):
                    i += 1
                else:
                    return None
            if i >= len(argv) or not _duration(argv[i]):
                return None
            i += 1
        elif name == "env":
            i += 1
            while i < len(argv):
                a = argv[i]
                if a in ("-i", "-", "--ignore-environment"):
                    i += 1
                elif a == "-u":
                    i += 2
                elif a.startswith("--unset="):
                    i += 1
                elif a == "--":
                    i += 1
                    break
                elif a.startswith("-"):
                    return None
                elif "=" in a and a.split("=", 1)[0] and all(ch in _NAME for ch in
                                                            a.split("=", 1)[0]):
                    i += 1
                else:
                    break
        elif name == "sudo":
            return argv[i:]  # sudo is a floor command itself; see _sudo_inner for the rest
        else:
            return argv[i:]
    return []


def _sudo_inner(argv):
    """The command sudo runs, when its options are plain ones that run it."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a in ("-E", "-H", "-n", "-S", "-k", "-P"):
            i += 1
        elif a in ("-u", "-g"):
            i += 2
        elif a == "--":
            i += 1
            break
        else:
            return None
    rest = _strip_wrappers(argv[i:])
    return rest or None


def _duration(s):
    body = s[:-1] if s[-1:] in "smhd" else s
    return bool(body) and body.replace(".", "", 1).isdigit()


def _rm_root(argv) -> bool:
    """rm with a recursive flag on the root, with plain options only."""
    if not argv or _name(argv[0]) != "rm":
        return False
    recursive = False
    targets = []
    opts = True
    for a in argv[1:]:
        if opts and a == "--":
            opts = False
        elif opts and a.startswith("--"):
            if a == "--recursive":
                recursive = True
            elif a not in ("--force", "--no-preserve-root", "--verbose"):
                return False
        elif opts and a.startswith("-") and len(a) > 1:
            if any(ch not in "rRfv" for ch in a[1:]):
                return False
            recursive = recursive or "r" in a or "R" in a
        else:
            targets.append(a)
    # only "/" itself (GNU rm skips "/." and "/..": no claim where rm would do nothing else)
    return recursive and any(t and t.strip("/") == "" for t in targets)


def _within(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


def _secret(path):
    for p in (path, os.path.realpath(path)):
        base = posixpath.basename(p.rstrip("/"))
        if base in _SECRET_NAMES or base.endswith(_SECRET_SUFFIXES):
            return True
    return False


def _read_args(name, args):
    out = []
    flags = True
    skip = False
    value_flags = _READER_VALUE_FLAGS.get(name, ())
    for a in args:
        if skip:
            skip = False
            continue
        if flags and a == "--":
            flags = False
            continue
        if flags and a.startswith("-") and a != "-":
            if a.startswith("--"):
                skip = a in value_flags
            else:
                # a short cluster: a value letter takes the rest, or the next word
                for k, letter in enumerate(a[1:], 1):
                    if letter in value_flags and len(letter) == 1:
                        skip = k == len(a) - 1
                        break
            continue
        if a != "-":
            out.append(a)
    return out


def _path_claim(out, arg, cwd, project, relative_ok, how, known_bug):
    if not arg or "\x00" in arg:
        return
    if not arg.startswith("/") and not relative_ok:
        return
    full = arg if arg.startswith("/") else cwd.rstrip("/") + "/" + arg
    if full.startswith(("/dev/", "/proc/")) or full in ("/dev", "/proc"):
        return
    real = os.path.realpath(full)
    if real.startswith(("/dev/", "/proc/")):
        return
    if _secret(full):
        out.add("secret", f"{how} {arg}")
        return
    if not _within(real, project):
        if known_bug("symlink-dotdot") and os.path.realpath(posixpath.normpath(full)) != real:
            return
        out.add("outside the project", f"{how} {arg} -> {real}")


def _argv_claims(out, seg, pipeline_pos, cwd, project, relative_ok, known_bug, paths=True):
    argv = [w.text() for w in seg.words if not w.expanded]
    if len(argv) != len(seg.words):
        return  # a word we cannot know exactly
    if seg.words and _is_assignment(seg.words[0]):
        return  # claimed already; the command after it is shifted
    for op, w in seg.redirects:
        if paths and op == "<" and not w.expanded and not w.glob:
            _path_claim(out, w.text(), cwd, project, relative_ok, "<", known_bug)
    if not argv:
        return
    inner = _strip_wrappers(argv)
    if inner is None or not inner:
        return
    name = _name(inner[0])
    if name == "sudo":
        out.add("floor command", "sudo")
        inner = _sudo_inner(inner)
        if inner is None:
            return
        name = _name(inner[0])
    if name is None:
        return
    if any(a in ("--help", "--version") for a in inner[1:]):
        return
    if name in FLOOR:
        out.add("floor command", name)
    if _rm_root(inner):
        if seg.first:
            out.deny.append(("recursive removal of /", " ".join(inner)))
        else:
            out.add("recursive removal of /", " ".join(inner))
    if name == "git" and len(inner) > 1:
        rest = inner[1:]
        while rest and rest[0] in ("--no-pager", "-C", "-c", "-p", "--paginate") or \
                (rest and rest[0].startswith(("-C", "--git-dir=", "--work-tree="))):
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        if rest and rest[0] == "push":
            out.add("floor subcommand", "git push")
    if pipeline_pos > 0 and name in _INTERPRETERS and all(a in ("-", "-s") for a in inner[1:]):
        out.add("pipe into an interpreter", " ".join(inner))
    if paths and name in _READERS:
        for arg in _read_args(name, inner[1:]):
            _path_claim(out, arg, cwd, project, relative_ok, name, known_bug)


def claims(text: str, cwd: str, project: str, known_bug=lambda bug: False,
           paths: bool = True) -> Claims:
    """Everything the oracle is sure of about `text` run in `cwd` inside `project`.
    `known_bug(id)` -> True makes it skip a shape of an open gateway bug. `paths=False`:
    no claims about files read (when the caller cannot know the directories)."""
    out = Claims()
    bad = _char_claim(text)
    if bad:
        out.add(*bad)
        return out  # the rest is read differently by different tools: claim no more
    lexer = _Lexer(text, out)
    try:
        lexer.run()
    except _Stop as exc:
        out.stopped = str(exc)
    except RecursionError:  # pragma: no cover - the lexer does not recurse
        out.stopped = "recursion"
    # Claims about the simple commands read in full (even if reading stopped later: bash
    # would either run them as read or, on a syntax error later in the line, run nothing,
    # and the gateway must not allow what it cannot parse either).
    relative_ok = True
    pipeline_pos = 0
    for seg in out.segments:
        if any(w.text() in ("cd", "pushd", "popd") for w in seg.words):
            relative_ok = False  # relative paths after this are read from elsewhere
        pipeline_pos = pipeline_pos + 1 if seg.op_before == "|" else 0
        _argv_claims(out, seg, pipeline_pos, cwd, project, relative_ok, known_bug, paths)
    out.certain_text = text
    if out.stopped is not None and out.deny:
        if lexer.complete_segments >= 1:
            # the first line(s) were complete before reading stopped: bash runs them first,
            # whatever follows (a deny claim is only ever about the first segment)
            out.certain_text = text[:lexer.complete_pos]
        else:
            # bash may reject the line where reading stopped: then nothing of it runs;
            # still never allowed, but not a certain deny
            out.no_allow.extend(out.deny)
            out.deny = []
    return out
