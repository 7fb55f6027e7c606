"""Load bashlex with its LALR tables taken from a validated, pre-generated cache.

`import bashlex` costs about a quarter of a second because `bashlex/parser.py` calls
`yacc.yacc()` at import time and bashlex's vendored PLY always rebuilds the LALR tables from
the grammar docstrings (it never reads `parsetab.py`).  `bashlex/yacc.py` also imports
`inspect` (and with it `dis`, `ast`, `tokenize`, `linecache`...) only for the grammar
reflection.  The hook is a fresh process per tool call, so both costs are paid every time.

This module imports bashlex in a controlled order:

1. the `bashlex` package object is created without running its `__init__` (which would import
   `bashlex.parser` and build the tables at once);
2. `bashlex.yacc` is imported while `sys.modules['inspect']` holds a lazy stand-in, so the
   module-level `import inspect` costs nothing; the stand-in imports the real module the first
   time any attribute is used (only the slow path does), and is removed from `sys.modules`
   right after, so nothing else ever sees it;
3. `bashlex.yacc.yacc` is replaced, for the duration of the package import only, by
   `_make_yacc_replacement(...)`; it is called by `bashlex/parser.py` with that module's
   globals as `sys._getframe(1).f_globals` and
   - computes `grammar_signature()` of those globals (the `p_*` functions' names, modules,
     argument counts and docstrings in the order PLY numbers them, `tokens`, `precedence`,
     `start`, `p_error`, a fingerprint of `bashlex/yacc.py` -- the table generator -- and the
     Python minor version) and compares it with `_lrtables.SIGNATURE`;
   - on an exact match builds the `LRParser` from the cached productions/action/goto, binding
     each production's callable by function name from those globals, into fresh mutable
     dicts (parser.py mutates `action` right after, the "correction states" hack: the cache
     holds the tables *before* that mutation);
   - on any mismatch or any error calls the real `yacc.yacc` with the same globals (slow but
     correct).  A table that does not match the installed grammar is never used;
4. `yacc.yacc` is restored and the package `__init__` finishes normally.

If bashlex was already imported when this module is loaded, it is used as is.  If anything
in the controlled import fails, the partial modules are dropped and a plain `import bashlex`
is done.  Which path was taken is recorded in `LOAD_PATH`, `FAST_PATH` and
`FALLBACK_REASON` (a fallback is silent: it is only slower).

Regenerate the cache after a bashlex or Python upgrade with
`python -m gateway.shell._gen_lrtables` (`--check` verifies it without writing).
"""

import sys

__all__ = ["bashlex", "parse", "FAST_PATH", "LOAD_PATH", "FALLBACK_REASON", "grammar_signature"]

#: Bumped whenever the layout of `_lrtables` or of the signature changes.
#: 2: DEFAULTED, rows decoded on first use, blake2b fingerprint of the table generator.
FORMAT = 2
#: Keyword arguments `bashlex/parser.py` passes; any other call shape takes the slow path.
_ALLOWED_YACC_KWARGS = frozenset({"outputdir", "debug"})
_MODULE_TYPE = type(sys)


# --------------------------------------------------------------------------------------------
# signature


def file_fingerprint(path):
    """(size, blake2b digest) of a file: detects any edit of it.

    It guards against a different bashlex (table generator) being installed, not against an
    attacker who can already write to site-packages. `_blake2` is a built-in of CPython that
    the hook loads anyway (the policy cache); the digest of bashlex's 100 KB `yacc.py` costs
    ~0.1 ms.
    """
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - non-CPython
        from hashlib import blake2b
    with open(path, "rb") as fh:
        data = fh.read()
    return (len(data), blake2b(data, digest_size=16).hexdigest())


def grammar_signature(pdict, yacc_module):
    """Everything the LALR table generator reads, as a plain comparable tuple.

    Mirrors `ParserReflect`: the `p_*` callables (not `p_error`) sorted by (first line,
    module, name) -- the order that numbers the productions -- with their docstrings (the
    grammar itself) and argument counts; any non-callable `p_*` name too, to be strict.
    Line numbers themselves are left out: only the order matters to the tables.
    """
    pfuncs = []
    others = []
    for name, item in pdict.items():
        if not name.startswith("p_") or name == "p_error":
            continue
        kind = type(item).__name__
        if kind in ("function", "method"):
            code = item.__code__
            line = getattr(item, "co_firstlineno", code.co_firstlineno)
            module = item.__module__ or ""
            pfuncs.append((line, module, name, kind, code.co_argcount, item.__doc__))
        else:
            others.append((name, kind))
    pfuncs.sort(key=lambda f: f[:3])
    perror = pdict.get("p_error")
    if perror is not None:
        perror = (type(perror).__name__, perror.__code__.co_argcount)
    precedence = pdict.get("precedence")
    if precedence is not None:
        precedence = tuple(tuple(level) for level in precedence)
    return (
        FORMAT,
        tuple(sys.version_info[:2]),
        file_fingerprint(yacc_module.__file__),
        pdict.get("start"),
        tuple(pdict["tokens"]),
        precedence,
        tuple(f[1:] for f in pfuncs),
        tuple(sorted(others)),
        perror,
    )


# --------------------------------------------------------------------------------------------
# building a parser from the cache
#
# A hook call parses one short command, which visits a few dozen of the ~350 LR states; so the
# rows of ACTION and GOTO and the Production objects are decoded when first used, not all at
# import (that was ~1.5 ms of every hook call). What a row decodes to is fixed by the text, so
# decoding on first use gives exactly the tables an eager decode gives; the whole text is
# checked for its shape before the cache is accepted, and a row that does not decode raises
# (ValueError/KeyError) instead of yielding a wrong row -- inside bashlex.parse that is a
# parse error, i.e. no allow.


class _LRTab:
    """The three attributes `yacc.LRParser.__init__` reads from an `LRTable`."""

    __slots__ = ("lr_productions", "lr_action", "lr_goto")

    def __init__(self, productions, action, goto):
        self.lr_productions = productions
        self.lr_action = action
        self.lr_goto = goto


def _decode_production(line):
    name, rhs, prec, func, lineno = line.split("|")
    assoc, level = prec.split()
    return (name, tuple(rhs.split()), (assoc, int(level)), func or None, int(lineno))


class _Rows:
    """The rows of one table (ACTION or GOTO) as text, decoded into dicts on demand."""

    __slots__ = ("lines", "keysets", "split_keysets")

    def __init__(self, text, keysets, states):
        lines = text.split("\n")
        if len(lines) != states or text.count("|") != 4 * states:
            raise ValueError("table rows are not one line of five fields per state")
        self.lines = lines
        self.keysets = keysets  # shared list of KEYSETS lines, split on first use
        self.split_keysets = {}

    def row(self, state):
        """A fresh dict for `state` (an int in range)."""
        text, keyset, default, symbols, values = self.lines[state].split("|")
        if int(text) != state:
            raise ValueError(f"row {state} is numbered {text}")
        if keyset:
            number = int(keyset)
            keys = self.split_keysets.get(number)
            if keys is None:
                keys = self.split_keysets[number] = self.keysets[number].split()
            row = dict.fromkeys(keys, int(default))
        else:
            row = {}
        if symbols:
            size = len(row)
            row.update(zip(symbols.split(), map(int, values.split()), strict=True))
            if len(row) != size:
                raise ValueError("exception symbol outside its keyset")
        return row


def decode_tables(tables):
    """(productions, action, goto) from a `_lrtables`-like object, all freshly built and
    fully decoded (the generator and the tests compare these; the parser decodes lazily).

    productions: [(name, rhs tuple, (assoc, level), function name or None, line)];
    action/goto: {state: {symbol: int}}, rows in state order, symbols in generation order.
    A row `state|keyset|default|symbols|values` maps every symbol of line `keyset` of
    KEYSETS to `default`, except the listed symbols (all in that keyset) which get `values`.
    Raises on malformed data.
    """
    productions = [_decode_production(line) for line in tables.PRODUCTIONS.split("\n")]
    keysets = tables.KEYSETS.split("\n")
    tables_out = []
    for text in (tables.ACTION, tables.GOTO):
        rows = _Rows(text, keysets, tables.STATES)
        tables_out.append({state: rows.row(state) for state in range(tables.STATES)})
    action, goto = tables_out
    return productions, action, goto


def decode_defaulted(tables):
    """{state: reduction} of the states with a single reduce action, in state order -- what
    `LRParser.set_defaulted_states` computes from the tables before parser.py mutates them."""
    numbers = [int(n) for n in tables.DEFAULTED.split()]
    if len(numbers) % 2:
        raise ValueError("DEFAULTED is not state/value pairs")
    out = dict(zip(numbers[::2], numbers[1::2], strict=True))
    if any(not 0 <= s < tables.STATES or v >= 0 for s, v in out.items()):
        raise ValueError("DEFAULTED holds a state out of range or a non-reduction")
    return out


_LAZY_CLASSES = {}


def _lazy_classes(yacc_module):
    """(table class, productions class) for `yacc_module`'s `frozendict`; built once."""
    classes = _LAZY_CLASSES.get(yacc_module)
    if classes is not None:
        return classes
    from bashlex import utils

    class LazyTable(utils.frozendict):
        """A read-only {state: row} like the `frozendict` LRParser keeps, each row decoded
        on first use (and then kept: parser.py mutates some rows right after the build)."""

        def __init__(self, rows, states):
            self._rows = rows
            self._states = states
            self._decoded = {}

        def __getitem__(self, state):
            try:
                return self._decoded[state]
            except KeyError:
                pass
            if type(state) is not int or not 0 <= state < self._states:
                raise KeyError(state)
            return self._decoded.setdefault(state, self._rows.row(state))

        def __contains__(self, state):
            return type(state) is int and 0 <= state < self._states

        def __iter__(self):
            return iter(range(self._states))

        def __len__(self):
            return self._states

        def copy(self, **add_or_replace):
            return utils.frozendict(self, **add_or_replace)

        def __repr__(self):
            return f"<frozendict {dict(self)!r}>"

    class LazyProductions:
        """The parser's productions (a tuple in yacc), each Production built on first use."""

        __slots__ = ("_lines", "_build", "_built")

        def __init__(self, lines, build):
            self._lines = lines
            self._build = build
            self._built = [None] * len(lines)

        def __getitem__(self, index):
            if type(index) is slice:
                return tuple(self[i] for i in range(len(self._lines))[index])
            p = self._built[index]
            if p is None:
                if index < 0:
                    index += len(self._lines)
                p = self._built[index] = self._build(index, self._lines[index])
            return p

        def __len__(self):
            return len(self._lines)

        def __iter__(self):
            return (self[i] for i in range(len(self._lines)))

    classes = _LAZY_CLASSES[yacc_module] = (LazyTable, LazyProductions)
    return classes


def build_cached_parser(pdict, yacc_module, tables):
    """An `LRParser` from `tables` (a `_lrtables`-like object), callables bound from `pdict`.

    Does not validate the grammar: callers compare `grammar_signature()` with
    `tables.SIGNATURE` first. Checks the shape of the tables and raises when it is off.
    Rows and productions are decoded on first use into objects of this parser alone, so
    mutating the result never touches the cache or another parser.
    """
    table_class, productions_class = _lazy_classes(yacc_module)
    states = tables.STATES
    keysets = tables.KEYSETS.split("\n")
    action = table_class(_Rows(tables.ACTION, keysets, states), states)
    goto = table_class(_Rows(tables.GOTO, keysets, states), states)
    defaulted = decode_defaulted(tables)
    lines = tables.PRODUCTIONS.split("\n")
    if tables.PRODUCTIONS.count("|") != 4 * len(lines):
        raise ValueError("productions are not one line of five fields each")
    production = yacc_module.Production
    source = pdict.get("__file__", "")

    def build(number, line):
        name, rhs, prec, func, lineno = _decode_production(line)
        p = production(number, name, rhs, prec, func, source if func else "", lineno)
        p.bind(pdict)  # pdict[func]
        return p

    parser = yacc_module.LRParser(_LRTab((), {}, {}), pdict.get("p_error"))
    parser.productions = productions_class(lines, build)
    parser.action = action
    parser.goto = goto
    parser.defaulted_states = defaulted
    return parser


def _module_view(pdict):
    """A module object whose attributes are `pdict`, for `yacc.yacc(module=...)`."""
    view = _MODULE_TYPE(str(pdict.get("__name__", "_grammar")))
    view.__dict__.update(pdict)
    return view


class _Status:
    def __init__(self):
        self.path = "unloaded"  # "cache" | "fallback" | "preloaded"
        self.reason = None

    def fallback(self, reason):
        self.path = "fallback"
        if self.reason is None:
            self.reason = reason


def _load_tables():
    from gateway.shell import _lrtables

    return _lrtables


def _cached_parser_or_reason(args, kwargs, frame, yacc_module, load_tables):
    """(parser, None) from the cache, or (None, why the cache may not be used)."""
    if args or not set(kwargs) <= _ALLOWED_YACC_KWARGS or kwargs.get("debug"):
        return None, f"unexpected yacc() arguments: {args!r} {sorted(kwargs)!r}"
    pdict = frame.f_globals
    if frame.f_locals is not pdict:
        return None, "yacc() not called at module level"
    tables = load_tables()
    if getattr(tables, "FORMAT", None) != FORMAT:
        return None, "cache format mismatch"
    caller = pdict.get("__name__")
    if caller != tables.CALLER:
        return None, f"yacc() called from {caller!r}, the cache is for {tables.CALLER!r}"
    if grammar_signature(pdict, yacc_module) != tables.SIGNATURE:
        return None, "grammar signature mismatch: python -m gateway.shell._gen_lrtables"
    return build_cached_parser(pdict, yacc_module, tables), None


def _make_yacc_replacement(orig_yacc, yacc_module, status, load_tables=_load_tables):
    """A drop-in for `yacc.yacc` that uses the cache when it provably matches."""

    def yacc(*args, **kwargs):
        frame = sys._getframe(1)
        try:
            parser, reason = _cached_parser_or_reason(
                args, kwargs, frame, yacc_module, load_tables)
        except Exception as exc:  # anything odd: the slow path is always correct
            parser, reason = None, f"cache unusable: {type(exc).__name__}: {exc}"
        if parser is not None:
            if status.path == "unloaded":
                status.path = "cache"
            yacc_module.parse = parser.parse  # what the real yacc() does too
            return parser
        status.fallback(reason)
        if "module" not in kwargs:
            # The real yacc() would read the globals of *its* caller's caller, which is now
            # this function; hand it the same namespace get_caller_module_dict() would build.
            pdict = frame.f_globals
            if frame.f_locals is not pdict:
                pdict = dict(pdict)
                pdict.update(frame.f_locals)
            kwargs["module"] = _module_view(pdict)
        return orig_yacc(*args, **kwargs)

    return yacc


# --------------------------------------------------------------------------------------------
# lazy `inspect`


class _LazyInspect(_MODULE_TYPE):
    """Stands in for `inspect` inside `bashlex.yacc` until an attribute is first used."""

    def __init__(self, holders):
        super().__init__("inspect")
        self.__dict__["_holders"] = holders  # modules whose global `inspect` is this object

    def __getattr__(self, name):
        if sys.modules.get("inspect") is self:
            del sys.modules["inspect"]
        import inspect as real

        for holder in self.__dict__["_holders"]:
            if getattr(holder, "inspect", None) is self:
                holder.inspect = real
        return getattr(real, name)


# --------------------------------------------------------------------------------------------
# the controlled import


def _find_spec_and_module_from_spec():
    try:  # importlib._bootstrap, always loaded: avoids importing importlib.util (+contextlib)
        from _frozen_importlib import _find_spec, module_from_spec

        return (lambda name: _find_spec(name, None)), module_from_spec
    except ImportError:  # pragma: no cover - non-CPython
        from importlib.util import find_spec, module_from_spec

        return find_spec, module_from_spec


def _load(load_tables=_load_tables):
    """Import bashlex; return (module, status)."""
    status = _Status()
    modules = sys.modules
    if "bashlex" in modules:
        import bashlex

        status.path = "preloaded"
        status.reason = "bashlex was imported before gateway.shell.bashlex_loader"
        return bashlex, status

    before = {name for name in modules if name == "bashlex" or name.startswith("bashlex.")}
    try:
        find_spec, module_from_spec = _find_spec_and_module_from_spec()
        spec = find_spec("bashlex")
        if spec is None or spec.loader is None:
            raise ImportError("bashlex not found")
        package = module_from_spec(spec)
        modules["bashlex"] = package

        holders = []
        stand_in = None
        if "inspect" not in modules:
            stand_in = _LazyInspect(holders)
            modules["inspect"] = stand_in
        try:
            __import__("bashlex.yacc")
        finally:
            if stand_in is not None and modules.get("inspect") is stand_in:
                del modules["inspect"]
        yacc_module = modules["bashlex.yacc"]
        holders.append(yacc_module)

        orig_yacc = yacc_module.yacc
        replacement = _make_yacc_replacement(orig_yacc, yacc_module, status, load_tables)
        yacc_module.yacc = replacement
        try:
            spec.loader.exec_module(package)
        finally:
            if yacc_module.yacc is replacement:
                yacc_module.yacc = orig_yacc
        if status.path == "unloaded":  # parser.py did not call yacc(): not the bashlex we know
            raise ImportError("bashlex.parser did not call yacc.yacc()")
        return modules["bashlex"], status
    except Exception as exc:
        for name in [n for n in modules if n == "bashlex" or n.startswith("bashlex.")]:
            if name not in before:
                del modules[name]
        import bashlex  # plain, slow, correct; raises if bashlex itself is broken

        status = _Status()
        status.path = "fallback"
        status.reason = f"loader error: {type(exc).__name__}: {exc}"
        return bashlex, status


bashlex, _status = _load()

#: "cache" (tables from `_lrtables`), "fallback" (real yacc) or "preloaded" (imported elsewhere).
LOAD_PATH = _status.path
FAST_PATH = LOAD_PATH == "cache"
#: Why the cache was not used, or None.
FALLBACK_REASON = _status.reason
del _status

#: Same function as `bashlex.parse`.
parse = bashlex.parse
