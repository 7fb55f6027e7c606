"""Reading a command's arguments the way getopt-style programs do (below the validator, the
guards' effects analysis and the policy's effects model, which all read arguments so).

Options are split from positionals; short clusters (-xvf) become single letters; a value
is attached (-n5, --lines=5) or the next word, for options the catalogue names as taking
one; `--` ends the options. Every option value and every `key=value` positional is kept so
that paths hidden in them (-o/x, --output=/x, of=/x) are checked too.
"""


class Option:
    __slots__ = ("name", "value", "word")

    def __init__(self, name, value, word):
        self.name = name  # "-x" or "--long"
        self.value = value  # str or None
        self.word = word  # the word as written (first word for separate values)

    def __repr__(self) -> str:
        return f"Option({self.name!r}, {self.value!r})"


class Args:
    __slots__ = ("options", "positionals", "attached", "rest")

    def __init__(self):
        self.options = []  # [Option]
        self.positionals = []  # [str]
        self.attached = []  # values glued to options nobody declared: -C/tmp, --x=/y
        self.rest = None  # the words after `--` (also among positionals), None without it

    def has(self, *names) -> bool:
        return any(o.name in names for o in self.options)

    def values(self, *names) -> list:
        return [o.value for o in self.options if o.name in names and o.value is not None]


def parse_words(words, value_flags=frozenset()) -> Args:
    """Split `words` as Go's flag package reads them: every word before the first operand
    is one option, written with one or two dashes (`-deps`, `--json`: both -name), its value
    glued (-f=x) or, for `value_flags`, the next word; `--` ends them. A word that starts
    with '-' after an operand is an option too (`go test ./... -count=1`), so none is ever
    taken for a path."""
    args = Args()
    i = 0
    n = len(words)
    while i < n:
        word = words[i]
        i += 1
        if word == "--":
            args.positionals.extend(words[i:])
            args.rest = list(words[i:])
            break
        if word.startswith("-") and len(word) > 1 and word != "-":
            name, eq, value = word.lstrip("-").partition("=")
            name = "-" + name
            if eq:
                args.options.append(Option(name, value, word))
                if name not in value_flags:
                    args.attached.append(value)
            elif name in value_flags and i < n:
                args.options.append(Option(name, words[i], word))
                i += 1
            else:
                args.options.append(Option(name, None, word))
            continue
        args.positionals.append(word)
    return args


def resolve_long(name: str, longs) -> str:
    """The long option `name` (as written, without =value) selects among `longs`, as
    getopt_long reads it: itself, or the one option it abbreviates; else `name` unchanged
    (unknown, or an ambiguous abbreviation: the program refuses it)."""
    if name in longs:
        return name
    if len(name) < 3:
        return name
    hits = [o for o in longs if o.startswith(name)]
    return hits[0] if len(hits) == 1 else name


def parse(words, value_flags=frozenset(), longs=None, optional=frozenset(),
          options_first=False, plus=False) -> Args:
    """Split `words` (the arguments, without the command name). With `longs` (every long
    option the command knows), abbreviated long options are read as the option they
    abbreviate (--rec is --recursive); `optional` options take a value only glued to them
    (-w16, --width=16). With `options_first` the options end at the first operand, as a
    getopt without GNU permutation reads them (less): every later word is an operand, even
    one that starts with `-`. With `plus` a word `+TEXT` among the options is the option
    `+` with the value TEXT (less's `+cmd`: a command it runs at start)."""
    args = Args()
    i = 0
    n = len(words)
    while i < n:
        word = words[i]
        i += 1
        if word == "--":
            args.positionals.extend(words[i:])
            args.rest = list(words[i:])
            break
        if plus and word.startswith("+") and len(word) > 1:
            args.options.append(Option("+", word[1:], word))
            continue
        if word.startswith("--") and len(word) > 2:
            name, eq, value = word.partition("=")
            if longs is not None:
                name = resolve_long(name, longs)
            if eq:
                args.options.append(Option(name, value, word))
                if name not in value_flags:
                    args.attached.append(value)
            elif name in value_flags and i < n:
                args.options.append(Option(name, words[i], word))
                i += 1
            else:
                args.options.append(Option(name, None, word))
            continue
        if word.startswith("-") and len(word) > 1:
            if word[:2] in optional:
                args.options.append(Option(word[:2], word[2:] or None, word))
                continue
            if word[:2] in value_flags:
                if len(word) > 2:
                    args.options.append(Option(word[:2], word[2:], word))
                elif i < n:
                    args.options.append(Option(word[:2], words[i], word))
                    i += 1
                else:
                    args.options.append(Option(word[:2], None, word))
                continue
            letters = word[1:]
            for k, ch in enumerate(letters):
                flag = "-" + ch
                if flag in optional:
                    args.options.append(Option(flag, letters[k + 1:] or None, word))
                    break
                if flag in value_flags:
                    rest = letters[k + 1:]
                    if rest:
                        args.options.append(Option(flag, rest, word))
                    elif i < n:
                        args.options.append(Option(flag, words[i], word))
                        i += 1
                    else:
                        args.options.append(Option(flag, None, word))
                    break
                args.options.append(Option(flag, None, word))
            else:
                tail = letters[1:]
                if tail and not tail.isalnum():
                    # -C/tmp for an option nobody declared as taking a value
                    args.attached.append(tail)
            continue
        if options_first:
            args.positionals.extend(words[i - 1:])
            break
        args.positionals.append(word)
    return args


def long_matches(name: str, listed: str) -> bool:
    """`name` (as written, without =value) selects the long option `listed`: exactly, or as
    an abbreviation getopt_long and git's parser accept (at least one letter after --)."""
    return name == listed or (len(name) >= 3 and listed.startswith(name))


def abbreviates_only(name: str, options, allowed) -> bool:
    """`name` (a long option as written) is a prefix that git's parser and getopt_long would
    accept for some option of the complete list `options`, and every option it can stand for
    is in `allowed`. Without a complete list no prefix is resolved (False)."""
    if not options or not name.startswith("--") or len(name) < 3:
        return False
    cands = [o for o in options if o.startswith(name)]
    return bool(cands) and all(c in allowed for c in cands)


def first_unsafe(args: Args, unsafe, words=()) -> str:
    """The first option in `args` that is one of `unsafe`, or ""."""
    if not unsafe:
        return ""
    shorts = {u for u in unsafe if not u.startswith("--")}
    longs = [u for u in unsafe if u.startswith("--")]
    for opt in args.options:
        if opt.name.startswith("--"):
            for u in longs:
                if long_matches(opt.name, u):
                    return u
        elif opt.name in shorts:
            return opt.name
    for word in words:  # single-dash long options (-exec, -toolexec) as whole words
        base = word.split("=", 1)[0]
        if base in shorts and len(base) > 2:
            return base
    return ""


# xxd reads its options its own way: one option per word, named by its first two characters
# (-ps is -p, -revert is -r, --len is -l), a value glued or in the next word, options only
# before the first file; the second file is the output it writes.
_XXD_VALUE = {"-c": "ols", "-g": "roup", "-o": "ffset", "-s": ("kip", "eek"), "-l": "en",
              "-n": "ame", "-R": ""}
_XXD_FLAGS = frozenset(("-a", "-b", "-e", "-u", "-p", "-i", "-C", "-d", "-r", "-E", "-v",
                        "-h"))


def xxd_parse(words):
    """(option names, positionals, error) as xxd reads `words`; error is "" or the word xxd
    would refuse (it then exits without reading or writing)."""
    names = []
    i = 0
    n = len(words)
    while i < n:
        word = words[i]
        pp = word[1:] if word.startswith("--") and len(word) > 2 else word
        if pp == "--":
            i += 1
            break
        if not pp.startswith("-") or len(pp) < 2:
            break
        key = pp[:2]
        if key == "-c" and pp[2:].startswith("apitalize"):
            key = "-C"
        if key in _XXD_VALUE:
            longs = _XXD_VALUE[key]
            longs = longs if isinstance(longs, tuple) else (longs,)
            glued = pp[2:] and not any(lg and pp[2:].startswith(lg) for lg in longs)
            if not glued:
                i += 1
                if i >= n:
                    return names, [], word
        elif key not in _XXD_FLAGS:
            return names, [], word
        names.append(key)
        i += 1
    return names, list(words[i:]), ""
