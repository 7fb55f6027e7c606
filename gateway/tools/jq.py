"""jq's program text: whether a filter only reads and prints (jq_program_problem names what
else it does), for the validator's jq check (gateway.validator.checks.programs); beside
sed.py and awk.py."""


# A jq program is allowed only in a safe subset: every function it calls is a built-in of
# this list (all of jq's built-ins but `env`, which reads the environment, and
# `get_search_list`/`modulemeta`, which read module paths and files) or a function it defines
# itself; every variable is one it binds (`as $x`, `def f($x)`, `label $x`), one given on
# the command line (--arg NAME ...), $ARGS or $__loc__ ($ENV, the environment, only when the
# program binds that name itself); no `import`/`include`, no `mod::name`. Object keys
# (`{name, version}`), fields (`.env`) and strings are data.
_JQ_BUILTINS = frozenset((
    "IN", "INDEX", "JOIN", "ascii", "abs", "acos", "acosh", "add", "all", "any", "arrays",
    "ascii_downcase", "ascii_upcase", "asin", "asinh", "atan", "atan2", "atanh", "booleans",
    "bsearch", "builtins", "capture", "cbrt", "ceil", "combinations", "contains", "copysign",
    "cos", "cosh", "date", "dateadd", "datesub", "debug", "del", "delpaths", "drem", "empty",
    "endswith", "erf", "erfc", "error", "exp", "exp10", "exp2", "explode", "fabs", "fdim",
    "finites", "first", "flatten", "floor", "fma", "fmax", "fmin", "fmod", "format",
    "frexp", "from_entries", "fromdate", "fromdateiso8601", "fromjson", "fromstream",
    "gamma", "get_jq_origin", "get_prog_origin", "getpath", "gmtime", "group_by", "gsub",
    "halt", "halt_error", "has", "have_decnum", "have_literal_numbers", "hypot", "implode",
    "in", "index", "indices", "infinite", "input", "input_filename", "input_line_number",
    "inputs", "inside", "isempty", "isfinite", "isinfinite", "isnan", "isnormal",
    "isvalid", "iterables", "j0", "j1", "jn", "join", "keys", "keys_unsorted", "last",
    "ldexp", "leaf_paths", "length", "lgamma", "lgamma_r", "limit", "localtime", "log",
    "log10", "log1p", "log2", "logb", "ltrimstr", "ltrim", "map", "map_values", "match",
    "max", "max_by", "min", "min_by", "mktime", "modf", "nan", "nearbyint", "nextafter",
    "nexttoward", "normals", "not", "now", "nth", "nulls", "numbers", "objects", "path",
    "paths", "pick", "pow", "pow10", "range", "recurse", "recurse_down", "remainder",
    "repeat", "reverse", "rindex", "rint", "round", "rtrimstr", "rtrim", "scalars",
    "scalars_or_empty", "scalb", "scalbln", "scan", "select", "setpath", "significand",
    "sin", "sinh", "skip", "sort", "sort_by", "split", "splits", "sqrt", "startswith",
    "stderr", "strflocaltime", "strftime", "strings", "strptime", "sub", "tan", "tanh",
    "test", "tgamma", "to_entries", "toarray", "todate", "todateiso8601", "tojson",
    "tonumber", "tostream", "tostring", "transpose", "trim", "trimstr", "trunc",
    "truncate_stream", "type", "unique", "unique_by", "until", "utf8bytelength", "values",
    "walk", "while", "with_entries", "y0", "y1", "yn", "getpath", "splits", "todate",
    "tojson", "getpath", "ltrimstr", "abs", "toarray", "have_literal_numbers"))
_JQ_KEYWORDS = frozenset(("def", "as", "if", "then", "elif", "else", "end", "reduce",
                          "foreach", "try", "catch", "label", "and", "or", "__loc__", "break",
                          "null", "true", "false"))
_JQ_FORMATS = frozenset(("@text", "@json", "@html", "@uri", "@urid", "@csv", "@tsv", "@sh",
                         "@base64", "@base64d", "@base32", "@base32d"))
_JQ_VARIABLES = frozenset(("__loc__", "ARGS", "__prog_args"))


def _jq_tokens(prog, out, depth=0):
    """Append (kind, text) tokens of a jq program to `out`: ident, var, field, format, str,
    num, op. A string's interpolations `\\(...)` are tokenized as code (between "(" and ")"
    tokens). Raises ValueError on text jq would not read either."""
    if depth > 32:
        raise ValueError("too deeply nested")
    i = 0
    n = len(prog)
    while i < n:
        c = prog[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "#":
            nl = prog.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        if c == '"':
            i = _jq_string(prog, i + 1, out, depth)
            continue
        if c == "$":
            j = i + 1
            while j < n and prog[j] in " \t\r\n":
                j += 1
            k = j
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            if k == j:
                raise ValueError("a $ without a name")
            if prog[k:k + 2] == "::":
                raise ValueError("a module variable ($mod::name)")
            out.append(("var", prog[j:k]))
            i = k
            continue
        if c == "@":
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            out.append(("format", prog[i:k]))
            i = k
            continue
        if c == "." and i + 1 < n and (prog[i + 1].isalpha() or prog[i + 1] == "_"):
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            out.append(("field", prog[i + 1:k]))
            i = k
            continue
        if c.isdigit() or (c == "." and i + 1 < n and prog[i + 1].isdigit()):
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "." or (
                    prog[k] in "+-" and prog[k - 1] in "eE")):
                k += 1
            out.append(("num", prog[i:k]))
            i = k
            continue
        if c.isalpha() or c == "_":
            k = i + 1
            while k < n and (prog[k].isalnum() or prog[k] == "_"):
                k += 1
            if prog[k:k + 2] == "::":
                raise ValueError(f"a module function ({prog[i:k]}::...)")
            out.append(("ident", prog[i:k]))
            i = k
            continue
        three = prog[i:i + 3]
        if three == "?//":
            out.append(("op", three))
            i += 3
            continue
        two = prog[i:i + 2]
        if two in ("|=", "+=", "-=", "*=", "/=", "%=", "//", "==", "!=", "<=", ">=", "..",
                   "?.", "//="):
            out.append(("op", two))
            i += 2
            continue
        if c in "|,()[]{}:;.+-*/%<>=?":
            out.append(("op", c))
            i += 1
            continue
        raise ValueError(f"{c!r} is not jq syntax this check reads")


def _jq_string(prog, i, out, depth):
    """Tokenize a string body starting at prog[i]; return the index past its closing quote."""
    n = len(prog)
    out.append(("str", '"'))
    while i < n:
        c = prog[i]
        if c == '"':
            return i + 1
        if c == "\\" and i + 1 < n and prog[i + 1] == "(":
            level = 1
            j = i + 2
            k = j
            in_str = False
            while k < n and level:
                ch = prog[k]
                if in_str:
                    if ch == "\\":
                        k += 2
                        continue
                    if ch == '"':
                        in_str = False
                elif ch == '"':
                    in_str = True
                elif ch == "(":
                    level += 1
                elif ch == ")":
                    level -= 1
                k += 1
            if level:
                raise ValueError("an unterminated interpolation")
            out.append(("op", "("))
            _jq_tokens(prog[j:k - 1], out, depth + 1)
            out.append(("op", ")"))
            i = k
            continue
        i += 2 if c == "\\" else 1
    raise ValueError("an unterminated string")


class _Frame:
    """A scope of a jq program: a bracket, a `def` body, a binding (`as`, `label`, a
    completed `def`) or the start of an `if`/`try` whose branches end bindings."""

    __slots__ = ("kind", "vars", "funcs", "name")

    def __init__(self, kind, variables=(), funcs=(), name=""):
        self.kind = kind  # "bracket", "def", "bind", "if"
        self.vars = set(variables)
        self.funcs = set(funcs)
        self.name = name


def _jq_pattern(tokens, k):
    """The variables a destructuring pattern starting at tokens[k] binds, the index where it
    ends (at `|` or `(` outside brackets), or an error."""
    names = []
    level = 0
    j = k
    while j < len(tokens):
        kind, text = tokens[j]
        if kind == "op" and text in ("(", "[", "{"):
            if text == "(" and level == 0:
                return names, j, ""
            if text == "(":
                return names, j, "a computed key in a destructuring pattern"
            level += 1
        elif kind == "op" and text in (")", "]", "}"):
            level -= 1
            if level < 0:
                return names, j, "an unterminated binding"
        elif kind == "op" and text == "|" and level == 0:
            return names, j, ""
        elif kind == "var":
            names.append(text)
        j += 1
    return names, j, "a binding without a body"


def jq_program_problem(prog: str, bound=()) -> str:
    """Why a jq program is not in the safe subset, or "". `bound` are the variable names
    the command line gives it (--arg NAME VALUE...). Names are resolved with jq's scopes: a
    binding (`. as $x | ...`, `def f: ...;`) reaches to the end of the expression it is in,
    never past a closing bracket, a `;` or the next branch of an if/try."""
    tokens = []
    try:
        _jq_tokens(prog, tokens)
    except (ValueError, RecursionError) as exc:
        return f"not read: {exc}"
    frames = [_Frame("bracket", set(bound) | _JQ_VARIABLES)]

    def visible(attr, name):
        return any(name in getattr(f, attr) for f in frames)

    def pop_to(kinds):
        """Pop the frames above the innermost one of `kinds`; return it (not popped)."""
        while len(frames) > 1 and frames[-1].kind not in kinds:
            frames.pop()
        return frames[-1]

    pending_def = []  # def names whose parameters are being read
    k = 0
    n = len(tokens)
    while k < n:
        kind, text = tokens[k]
        before = tokens[k - 1] if k else ("op", "")
        after = tokens[k + 1] if k + 1 < n else ("op", "")
        k += 1
        if kind == "op":
            if text in ("(", "[", "{"):
                frames.append(_Frame("bracket", name=text))
            elif text in (")", "]", "}"):
                pop_to(("bracket",))
                if len(frames) > 1:
                    frames.pop()
            elif text == ";":
                top = pop_to(("bracket", "def"))
                if top.kind == "def":
                    frames.pop()
                    frames.append(_Frame("bind", funcs={top.name}))
            continue
        if kind == "var":
            if not visible("vars", text):
                if text == "ENV":
                    return "$ENV reads the environment, which holds secrets"
                return f"${text} is not a variable the program or the command line binds"
            continue
        if kind == "format":
            if text not in _JQ_FORMATS:
                return f"{text} is not a format this check knows"
            continue
        if kind != "ident":
            continue
        top = frames[-1]
        if top.kind == "bracket" and top.name == "{" and before in (("op", "{"), ("op", ",")) \
                and after in (("op", ":"), ("op", ","), ("op", "}")):
            continue  # an object key ({name, version}, {if: 1}): data
        if text in ("import", "include"):
            return f"{text} loads modules"
        if text == "def":
            if after[0] != "ident":
                return "a def without a name"
            name = after[1]
            params_v, params_f = set(), set()
            j = k + 1
            if j < n and tokens[j] == ("op", "("):
                j += 1
                while j < n and tokens[j] != ("op", ")"):
                    if tokens[j][0] == "ident":
                        params_f.add(tokens[j][1])
                    elif tokens[j][0] == "var":
                        params_v.add(tokens[j][1])
                        params_f.add(tokens[j][1])
                    elif tokens[j] != ("op", ";"):
                        return "a def parameter list this check does not read"
                    j += 1
                j += 1
            if j >= n or tokens[j] != ("op", ":"):
                return "a def without a body"
            frames.append(_Frame("def", params_v, params_f | {name}, name=name))
            k = j + 1
            continue
        if text in ("as", "label"):
            names, end, why = _jq_pattern(tokens, k)
            if why:
                return why
            if end < n and tokens[end] == ("op", "(") and text == "as":
                # reduce/foreach SOURCE as $x (INIT; UPDATE): bound inside the parentheses
                frames.append(_Frame("bracket", names, name="("))
            else:
                frames.append(_Frame("bind", names))
            k = end + 1
            continue
        if text in ("if", "try"):
            frames.append(_Frame("if", name=text))
            continue
        if text in ("then", "elif", "else", "end", "catch"):
            top = pop_to(("bracket", "def", "if"))
            if top.kind == "if" and text in ("end", "catch"):
                frames.pop()
            continue
        if text in _JQ_KEYWORDS or visible("funcs", text):
            continue
        if text in _JQ_BUILTINS:
            continue
        if text == "env":
            return "env reads the environment, which holds secrets"
        return f"{text} is not a function this check allows"
    del pending_def
    return ""
