"""The sqlite3 shell's read-only queries: `sqlite3 db.sqlite3 ".tables"`, `sqlite3 db.sqlite3
"SELECT id FROM orders LIMIT 5"`.

What a statement does is decided by SQLite's own compiler, not by reading the text: each SQL
argument is compiled (EXPLAIN: compiled, never run) against the database itself, opened
read-only and immutable, under an authorizer that permits reading tables and calling the
core's pure functions and nothing else. A write, ATTACH, PRAGMA, a transaction, a function the
list does not name (the shell's own readfile(), writefile(), edit(), load_extension()) or a
statement the library cannot compile (a table-valued function of the shell such as fsdir, a
syntax this SQLite does not know) makes the command ask. Dot-commands are the shell's own
language: only the listing and output-format ones run (.tables, .schema, .indexes, .headers,
.mode ...); `.shell`, `.system`, `.output`, `.once`, `.read`, `.import`, `.load`, `.open`,
`.save`, `.backup` ask. The database must be an existing regular file of the project
(sqlite3 creates a missing one): it is a path the command reads, judged as any read.
Without an SQL argument the shell reads its commands from standard input: ask.
Measured with sqlite3 3.40.1: `select readfile('.env')` printed the file, a missing database
file was created, `-cmd ".shell ..."` ran a program.
"""

import os

from gateway.validator.checks._common import PHASE

#: options that only change how results are printed (sqlite3 takes -x and --x alike)
_FLAGS = {"readonly", "header", "noheader", "column", "csv", "json", "line", "list", "box",
          "table", "markdown", "quote", "tabs", "ascii", "bail", "batch", "echo", "version",
          "help", "nofollow", "safe"}
_VALUE_FLAGS = {"separator", "nullvalue", "newline"}
#: dot-commands that list the schema or set the output format
_DOT = {".tables", ".schema", ".indexes", ".indices", ".headers", ".header", ".mode",
        ".nullvalue", ".separator", ".width", ".timer", ".changes", ".echo", ".print",
        ".fullschema", ".dbinfo"}
#: SQLite core functions that compute a value from their arguments (no file, no settings)
_FUNCTIONS = frozenset("""
abs avg changes char coalesce concat concat_ws count date datetime format glob group_concat
hex ifnull iif instr julianday last_insert_rowid length like likelihood likely lower ltrim
max min nullif octet_length printf quote random randomblob replace round rtrim sign soundex
string_agg strftime substr substring sum time timediff total total_changes trim typeof
unhex unicode unixepoch unlikely upper json json_array json_array_length json_extract
json_object json_type json_valid json_quote json_group_array json_group_object
row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value
nth_value
""".split())


def _ask(ctx, code, why):
    return ctx.ask(PHASE, code, f"sqlite3: {why}", rule="catalogue:sqlite3"), [], []


def _words(words):
    """(options, positionals, bad option or None) the way the shell reads its command line:
    options anywhere, one dash or two, -separator and friends take a value."""
    opts, pos = [], []
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and len(w) > 1:
            name = w.lstrip("-")
            if name in _FLAGS:
                opts.append(name)
            elif name in _VALUE_FLAGS and i + 1 < len(words):
                opts.append(name)
                i += 1
            else:
                return opts, pos, w
        else:
            pos.append(w)
        i += 1
    return opts, pos, None


def _dot_problem(arg):
    if "\n" in arg or "\r" in arg:
        return f"{arg.splitlines()[0]!r} is followed by more lines in the same argument"
    name = arg.split()[0] if arg.split() else arg
    if name not in _DOT:
        return f"the dot-command {name} is not one that only lists or formats"
    return ""


#: opcodes of a compiled program that write a database file, or change the connection
_WRITE_OPS = frozenset({"Vacuum", "IncrVacuum", "OpenWrite", "VUpdate", "VCreate", "VDestroy",
                        "JournalMode", "Checkpoint", "CreateBtree", "Destroy", "Clear",
                        "ParseSchema", "SqlExec", "Expire", "DropTable", "DropIndex",
                        "DropTrigger", "LoadAnalysis", "Pagecount", "MaxPgcnt"})


def _sql_problem(db, sql):
    """Why `sql` is not a plain read of `db`, or "". Two witnesses, both from SQLite:
    while compiling, the authorizer sees a SELECT and nothing but reads and the listed
    functions (VACUUM calls no authorizer at all: a SELECT is required); the compiled
    program (EXPLAIN) opens no write transaction and has no opcode that writes a file."""
    import sqlite3
    from urllib.parse import quote

    denied, seen = [], set()

    def authorize(action, arg1, arg2, dbname, trigger):
        seen.add(action)
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _FUNCTIONS:
            return sqlite3.SQLITE_OK
        what = {sqlite3.SQLITE_FUNCTION: f"the function {arg2}()",
                sqlite3.SQLITE_ATTACH: "ATTACH (opens another file)",
                sqlite3.SQLITE_PRAGMA: f"PRAGMA {arg1}"}.get(action, "a statement that changes "
                                                                 "the database or its settings")
        denied.append(what)
        return sqlite3.SQLITE_DENY

    try:
        con = sqlite3.connect(f"file:{quote(db)}?mode=ro&immutable=1", uri=True, timeout=1,
                              isolation_level=None)
    except sqlite3.Error as exc:
        return f"the database cannot be opened ({exc})"
    try:
        con.set_authorizer(authorize)
        try:
            program = con.execute("EXPLAIN " + sql).fetchall()
        except sqlite3.ProgrammingError as exc:  # more than one statement, among others
            return f"{exc}: one statement per argument is judged"
        except (sqlite3.Error, ValueError, OverflowError, RecursionError) as exc:
            if denied:
                return f"{denied[0]} is not a read"
            if "no such function" in str(exc):
                return f"{exc}: not one of SQLite's core functions (the sqlite3 shell adds " \
                    "readfile(), writefile(), edit(): they read and write files)"
            return f"SQLite cannot compile it here ({exc})"
        if denied:
            return f"{denied[0]} is not a read"
        if sqlite3.SQLITE_SELECT not in seen:
            return "it is not a SELECT (VACUUM and friends pass no authorizer)"
        for row in program:
            op = row[1] if len(row) > 3 else ""
            if op in _WRITE_OPS or (op == "Transaction" and row[3]):
                return f"its compiled program writes ({op})"
        return ""
    finally:
        con.close()


def sqlite3(ctx, spec, words, cwd):
    opts, pos, bad = _words(words)
    if bad:
        return _ask(ctx, "GW704", f"{bad} is not among its known options (-cmd and -init run "
                    "dot-commands, -A opens an archive)")
    if not pos:
        if {"version", "help"} & set(opts):
            return None, [], []
        return _ask(ctx, "GW712", "without a database and a statement the shell reads its "
                    "commands from standard input")
    db, commands = pos[0], pos[1:]
    if not commands:
        return _ask(ctx, "GW712", "without a statement the shell reads its commands from "
                    "standard input")
    if db.startswith("file:") or db == ":memory:" or not db:
        return _ask(ctx, "GW712", f"{db!r}: only a database file of the project is judged")
    from gateway.paths import resolve

    res = resolve(db, cwd, ctx.roots)
    if res.status == "inside" and (os.path.islink(res.lex) or not os.path.isfile(res.real)):
        return _ask(ctx, "GW712", f"{db!r} is not an existing regular file (sqlite3 creates "
                    "a database that does not exist)")
    if res.status == "inside":
        for arg in commands:
            if arg.lstrip().startswith("."):
                why = _dot_problem(arg.lstrip())
            else:
                why = _sql_problem(res.real, arg)
            if why:
                return _ask(ctx, "GW710", f"{arg!r}: {why}")
    # the database is a file the command reads: phase 5 judges where it is
    return None, [db], []
