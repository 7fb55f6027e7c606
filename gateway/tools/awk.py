"""awk's program text: whether a program only reads and prints (awk_program_problem names
what else it does), and -v assignments. One reading for the validator's awk check
(gateway.validator.checks.programs) and the effects analysis (gateway.effects.analysis.programs)."""

from gateway.shell.words import is_name as _awk_name  # awk's variable names are bash's

_AWK_KEYWORDS = frozenset(("BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if",
                           "else", "while", "for", "do", "break", "continue", "next",
                           "nextfile", "exit", "return", "delete", "in", "print", "printf",
                           "switch", "case", "default"))
#: built-in functions that compute (no command, no file, no environment)
_AWK_FUNCTIONS = frozenset(("length", "substr", "index", "split", "sub", "gsub", "match",
                            "sprintf", "tolower", "toupper", "int", "sqrt", "exp", "log",
                            "sin", "cos", "atan2", "rand", "srand", "gensub", "strftime",
                            "systime", "mktime", "asort", "asorti", "patsplit", "isarray",
                            "typeof", "and", "or", "xor", "compl", "lshift", "rshift",
                            "strtonum", "close", "fflush", "mkbool"))
#: built-in variables that hold the input, its fields and formats (no environment, no
#: arguments, no process information, no symbol table)
_AWK_VARIABLES = frozenset(("NR", "NF", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT",
                            "OFMT", "RSTART", "RLENGTH", "FILENAME", "RT", "FPAT",
                            "FIELDWIDTHS", "IGNORECASE", "ERRNO"))


def _awk_assignment_problem(text) -> str:
    """Why `-v NAME=VALUE` (or a NAME=VALUE operand) is not allowed, or ""."""
    name = text.partition("=")[0]
    if not _awk_name(name):
        return "not an assignment of a variable"
    if name in _AWK_VARIABLES or (name.islower() or not any(c.isalpha() for c in name)):
        return ""
    return f"{name} is not a variable this check allows to set"


def _awk_tokens(prog: str, regex_after_operator: bool = False, brackets: bool = False):
    """Yield (kind, text) with strings and regex literals removed: kinds are word, num, op,
    str.

    Where a `/` starts a regex literal and whether a regex literal skips bracket expressions
    (`/[/"]/`) are decided by awk's grammar, not by its lexer; the two switches pick one
    reading of each, and awk_program_problem judges the program under every reading."""
    i = 0
    n = len(prog)
    prev = ""
    prev_kind = ""
    while i < n:
        c = prog[i]
        if c in " \t\r":
            i += 1
            continue
        if c == "\\" and i + 1 < n and prog[i + 1] == "\n":
            i += 2  # a line continuation
            continue
        if c == "\n":
            yield "op", "\n"
            prev, prev_kind = "\n", "op"
            i += 1
            continue
        if c == "#":
            nl = prog.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c == '"':
            j = i + 1
            while j < n and prog[j] != '"':
                j += 2 if prog[j] == "\\" else 1
            yield "str", prog[i:j + 1]
            prev, prev_kind = "str", "str"
            i = j + 1
            continue
        if regex_after_operator:
            operand = prev_kind in ("str", "num") or (
                prev_kind == "word" and prev not in _AWK_KEYWORDS) \
                or prev in (")", "]", "++", "--", "$")
            starts_regex = c == "/" and not operand
        else:
            starts_regex = c == "/" and (prev in ("", "\n", "op") or prev in "(,{;!~&|"
                                         or prev.endswith("~"))
        if starts_regex:
            j = i + 1
            while j < n and prog[j] != "/":
                if prog[j] == "\n":
                    break
                if prog[j] == "[" and brackets:
                    k = j + 1
                    if k < n and prog[k] == "^":
                        k += 1
                    if k < n and prog[k] == "]":
                        k += 1
                    while k < n and prog[k] not in "]\n":
                        k += 1
                    j = k + 1 if k < n and prog[k] == "]" else k
                    continue
                j += 2 if prog[j] == "\\" else 1
            yield "str", prog[i:j + 1]
            prev, prev_kind = "str", "str"
            i = j + 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and prog[i + 1].isdigit()):
            j = i + 1
            while j < n and (prog[j].isalnum() or prog[j] == "." or (
                    prog[j] in "+-" and prog[j - 1] in "eE" and not prog[i:j].startswith(
                        ("0x", "0X")))):
                j += 1
            yield "num", prog[i:j]
            prev, prev_kind = prog[i:j], "num"
            i = j
            continue
        if c.isalpha() or c == "_" or ord(c) > 127:
            j = i
            while j < n and (prog[j].isalnum() or prog[j] == "_" or ord(prog[j]) > 127):
                j += 1
            word = prog[i:j]
            yield "word", word
            prev, prev_kind = word if regex_after_operator else "word", "word"
            i = j
            continue
        two = prog[i:i + 2]
        if two in (">>", "||", "&&", "==", "!=", "<=", ">=", "!~", "++", "--", "+=", "-=",
                   "*=", "/=", "%=", "^=", "|&", "::", "**"):
            yield "op", two
            prev, prev_kind = two, "op"
            i += 2
            continue
        yield "op", c
        prev, prev_kind = c, "op"
        i += 1


def awk_program_problem(prog: str) -> str:
    """Why an awk program is not in the safe subset, or "". The program is read every way
    awk might tokenize it (see _awk_tokens); any reading with a problem refuses it."""
    for regex_after_operator in (False, True):
        for brackets in (False, True):
            why = _awk_reading_problem(list(_awk_tokens(prog, regex_after_operator,
                                                        brackets)))
            if why:
                return why
    return ""


_AWK_OPS = frozenset(("\n", ";", "{", "}", "(", ")", "[", "]", ",", "$", "+", "-", "*", "/",
                      "%", "^", "**", "!", "<", ">", "<=", ">=", "==", "!=", "~", "!~", "&&",
                      "||", "?", ":", "=", "+=", "-=", "*=", "/=", "%=", "^=", "++", "--",
                      ">>"))


def _awk_reading_problem(tokens) -> str:
    defined = {tokens[k + 1][1] for k in range(len(tokens) - 1)
               if tokens[k] == ("word", "function") or tokens[k] == ("word", "func")}
    in_print = False
    depth = 0
    prev = ""
    for k, (kind, text) in enumerate(tokens):
        before, prev = prev, text
        nxt = tokens[k + 1][1] if k + 1 < len(tokens) else ""
        if kind == "word":
            if text in ("print", "printf"):
                in_print = True
                depth = 0
                continue
            if text == "getline":
                return "getline reads another file or a command's output"
            if text in _AWK_KEYWORDS or text in _AWK_VARIABLES:
                continue
            if text in _AWK_FUNCTIONS or text in defined:
                continue
            if nxt == "(" and before not in ("function", "func"):
                return f"{text}() is not a function this check allows (it may run a " \
                       "command or read files)"
            if text.islower() or not any(c.isalpha() for c in text.replace("_", "")):
                if text.isascii():
                    continue  # a variable (or parameter) of the program's own
            return f"{text} is not a name this check allows (the environment, the " \
                   "arguments, the process and the symbol table are out of reach)"
        if kind != "op":
            continue
        if text not in _AWK_OPS:
            if text in ("|", "|&"):
                return "a pipe to or from a command"
            if text == "@":
                return "@ (gawk's directives and indirect function calls)"
            if text == "::":
                return ":: (gawk's namespaces)"
            return f"{text!r} is not a construct this check allows"
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif text == "\n" and before in (",", "&&", "||", "{", "do", "else"):
            continue  # awk goes on after a newline that follows , && || (print "a",\n"b" > f)
        elif text in (";", "\n", "{", "}"):
            in_print = False
        elif text in (">", ">>") and in_print and depth <= 0:
            return "print output redirected to a file"
    return ""
