"""Generate `gateway/shell/_lrtables.py`, the LALR table cache used by `bashlex_loader`.

    python -m gateway.shell._gen_lrtables           # (re)write the cache
    python -m gateway.shell._gen_lrtables --check   # exit 1 if the cache is stale

The tables are produced by bashlex's own (vendored PLY) `yacc.yacc()` over the grammar in
`bashlex.parser`, i.e. exactly what `import bashlex` computes, *before* parser.py's
"correction states" mutation of `action`.  Run it with the interpreter and bashlex version
the gateway runs with: the stored signature records both, and the loader ignores the cache
under any other.
"""

import os
import sys

from gateway.shell import bashlex_loader as _loader

TABLES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lrtables.py")
_NAMES = ("FORMAT", "CALLER", "STATES", "SIGNATURE", "PRODUCTIONS", "KEYSETS", "ACTION", "GOTO",
          "DEFAULTED")


def fresh_parser():
    """A parser generated now, by the real `yacc.yacc`, from `bashlex.parser`'s grammar."""
    import bashlex.parser as grammar_module
    from bashlex import yacc

    if yacc.yacc.__module__ != yacc.__name__:
        raise RuntimeError("bashlex.yacc.yacc is patched; refusing to generate from it")
    return yacc.yacc(module=grammar_module, debug=False, write_tables=False)


def generate():
    """The cache contents as plain values: productions and (state, symbols, values) rows."""
    import bashlex.parser as grammar_module
    from bashlex import yacc

    parser = fresh_parser()
    productions = []
    for number, p in enumerate(parser.productions):
        if p.number != number:
            raise RuntimeError(f"production {number} is numbered {p.number}")
        productions.append((p.name, tuple(p.prod), tuple(p.prec), p.func, p.line))
    action = [(state, tuple(row), tuple(row.values())) for state, row in parser.action.items()]
    goto = [(state, tuple(row), tuple(row.values())) for state, row in parser.goto.items()]
    # set_defaulted_states() of the fresh tables (parser.py's later mutation does not redo it)
    defaulted = tuple(parser.defaulted_states.items())
    return {
        "FORMAT": _loader.FORMAT,
        "CALLER": grammar_module.__name__,
        "SIGNATURE": _loader.grammar_signature(vars(grammar_module), yacc),
        "PRODUCTIONS": tuple(productions),
        "ACTION": tuple(action),
        "GOTO": tuple(goto),
        "DEFAULTED": defaulted,
    }


# --------------------------------------------------------------------------------------------
# encoding


def _check_symbol(symbol):
    if not symbol or any(c.isspace() or c in '|\\"' for c in symbol):
        raise ValueError(f"symbol {symbol!r} cannot be stored in the text tables")
    return symbol


def _rows_text(rows, keysets):
    """One line per state: state|keyset|default|exception symbols|exception values.

    Most LALR rows reduce by one rule on many lookaheads and many rows share a lookahead
    set: storing each set once and each row as "this set -> the row's most common value,
    except ..." cuts ~8000 numbers to ~2000 and makes decoding mostly `dict.fromkeys`.
    """
    lines = []
    for expected, (state, symbols, values) in enumerate(rows):
        if state != expected:
            raise ValueError("states are not numbered 0..n-1")
        if not symbols:
            lines.append(f"{state}||||")
            continue
        symbols = tuple(map(_check_symbol, symbols))
        if symbols not in keysets:
            keysets[symbols] = len(keysets)
        counts = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        default = max(counts, key=lambda v: (counts[v], -values.index(v)))
        exceptions = [(s, v) for s, v in zip(symbols, values, strict=True) if v != default]
        except_symbols = " ".join(s for s, _ in exceptions)
        except_values = " ".join(str(v) for _, v in exceptions)
        lines.append(f"{state}|{keysets[symbols]}|{default}|{except_symbols}|{except_values}")
    return "\n".join(lines)


def _productions_text(productions):
    lines = []
    for name, rhs, (assoc, level), func, line in productions:
        rhs_text = " ".join(map(_check_symbol, rhs))
        func_text = "" if func is None else _check_symbol(func)
        lines.append(f"{_check_symbol(name)}|{rhs_text}|{_check_symbol(assoc)} {level:d}"
                     f"|{func_text}|{line:d}")
    return "\n".join(lines)


def encode(data):
    """The module-level values of `_lrtables.py`.

    The tables are kept as text (one row per line, decoded by `bashlex_loader.decode_tables`)
    rather than as tuple literals: compiling ~8000 literal constants costs ~70 ms whenever no
    .pyc can be used (PYTHONDONTWRITEBYTECODE, read-only install), a few long strings ~2 ms.
    """
    keysets = {}
    action = _rows_text(data["ACTION"], keysets)
    goto = _rows_text(data["GOTO"], keysets)
    return {
        "FORMAT": data["FORMAT"],
        "CALLER": data["CALLER"],
        "STATES": len(data["ACTION"]),
        "SIGNATURE": data["SIGNATURE"],
        "PRODUCTIONS": _productions_text(data["PRODUCTIONS"]),
        "KEYSETS": "\n".join(" ".join(symbols) for symbols in keysets),
        "ACTION": action,
        "GOTO": goto,
        "DEFAULTED": " ".join(f"{state:d} {value:d}" for state, value in data["DEFAULTED"]),
    }


def _as_decoded(data):
    """`data` in the shape `decode_tables` + `decode_defaulted` return, for round-trip
    comparison."""
    productions = [tuple(p) for p in data["PRODUCTIONS"]]
    action = {s: dict(zip(k, v, strict=True)) for s, k, v in data["ACTION"]}
    goto = {s: dict(zip(k, v, strict=True)) for s, k, v in data["GOTO"]}
    return productions, action, goto, dict(data["DEFAULTED"])


def _decoded(tables):
    return (*_loader.decode_tables(tables), _loader.decode_defaulted(tables))


def ordered(decoded):
    """(productions, action, goto, defaulted) with every dict as a list of items:
    order-sensitive."""
    productions, action, goto, defaulted = decoded
    return (list(productions),
            [(state, list(row.items())) for state, row in action.items()],
            [(state, list(row.items())) for state, row in goto.items()],
            list(defaulted.items()))


class _Namespace:
    def __init__(self, values):
        self.__dict__.update(values)


def is_current(data, tables):
    """Whether the `_lrtables`-like `tables` hold exactly `data`."""
    try:
        return (tables.FORMAT == data["FORMAT"] and tables.CALLER == data["CALLER"]
                and tables.SIGNATURE == data["SIGNATURE"]
                and ordered(_decoded(tables)) == ordered(_as_decoded(data)))
    except Exception:
        return False


def _bashlex_version():
    try:
        from importlib.metadata import version

        return version("bashlex")
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"


def render(data):
    """Python source for `_lrtables.py`; verified to decode back to `data` exactly."""
    values = encode(data)
    python = "{}.{}".format(*sys.version_info[:2])
    lines = [
        '"""LALR tables for bashlex\'s grammar, generated by gateway.shell._gen_lrtables.',
        "",
        f"DO NOT EDIT. bashlex {_bashlex_version()}, Python {python}. bashlex_loader uses these",
        "tables only when SIGNATURE equals the live grammar's signature; otherwise it falls back",
        "to bashlex's own yacc.yacc().",
        "",
        "PRODUCTIONS: one rule per line, numbered from 0: name|right-hand side|assoc level|function|line",
        "KEYSETS: symbol sets, numbered from 0 by line, shared by the rows of ACTION and GOTO",
        "ACTION, GOTO: one line per state: state|keyset|default|symbols|values -- every symbol of",
        "  the keyset maps to default, except the listed symbols, which map to the listed values.",
        "  ACTION values: >0 shift to that state, <0 reduce by rule -value, 0 accept;",
        "  GOTO values: the next state.",
        "DEFAULTED: state value pairs -- the states with a single (reduce) action, as",
        "  LRParser.set_defaulted_states() finds them in these tables.",
        '"""',
        "# fmt: off",
        "# ruff: noqa",
        "",
        f"FORMAT = {values['FORMAT']!r}",
        f"CALLER = {values['CALLER']!r}",
        f"STATES = {values['STATES']!r}",
        "",
        "SIGNATURE = (",
    ]
    lines += [f"    {part!r}," for part in values["SIGNATURE"]]
    lines.append(")")
    for name in ("PRODUCTIONS", "KEYSETS", "ACTION", "GOTO", "DEFAULTED"):
        lines += ["", f'{name} = """\\', values[name] + '"""']
    lines.append("")
    source = "\n".join(lines)

    namespace = {}
    exec(compile(source, "<_lrtables>", "exec"), namespace)
    if not is_current(data, _Namespace(namespace)):
        raise RuntimeError("rendered tables do not round-trip")
    return source


def _current_tables():
    namespace = {}
    with open(TABLES_PATH, encoding="utf-8") as fh:
        exec(compile(fh.read(), TABLES_PATH, "exec"), namespace)
    return _Namespace({name: namespace.get(name) for name in _NAMES})


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    data = generate()
    if "--check" in argv:
        try:
            current = _current_tables()
        except OSError:
            current = None
        if current is None or not is_current(data, current):
            print(f"{TABLES_PATH} is stale: run python -m gateway.shell._gen_lrtables",
                  file=sys.stderr)
            return 1
        print(f"{TABLES_PATH} is up to date")
        return 0
    source = render(data)
    tmp = TABLES_PATH + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(source)
    os.replace(tmp, TABLES_PATH)
    print(f"wrote {TABLES_PATH}: {len(data['PRODUCTIONS'])} productions, "
          f"{len(data['ACTION'])} states")
    return 0


if __name__ == "__main__":
    sys.exit(main())
