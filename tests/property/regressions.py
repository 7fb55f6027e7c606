"""Every bug the property suite (or anyone) found and that was fixed, as an exact case, so it
can never come back. test_regressions.py runs each one, and every invariant of the suite
(respelling, composition, wrappers, hook agreement) is also run on each of them.

Add a row when a bug is fixed: (command, decision, code, cwd or "", what it was). The
command may use {PROJECT} for the sample project's path (tests/property/support.py). Open
bugs are listed in known_bugs.py until they are fixed; then they move here.
"""

from helpers import search_code

FIXED = [
    # (command, decision, code, cwd, what it was)
    ("git --git-dir=/elsewhere/.git log", "ask", "GW501", "",
     "git-global-path-options: --git-dir was not path-checked (a foreign repo's config runs code)"),
    ("git --work-tree=/ status", "ask", "GW501", "",
     "git-global-path-options: --work-tree was not path-checked"),
    ("grep -r SECRET", "ask", "GW506", "",
     "recursive-readers: a recursive grep of the project printed .env"),
    ("grep -rn SECRET .", "ask", "GW506", "", "recursive-readers: explicit ."),
    ("grep -R BEGIN keys", "ask", "GW506", "", "recursive-readers: keys/server.pem"),
    ("rg --hidden SECRET", "ask", search_code("GW506~rg"), "",
     "recursive-readers: rg --hidden reads .env"),
    ("diff -r config src", "ask", "GW506", "",
     "recursive-readers: diff -r printed config/.env.production"),
    ("grep -R x scripts", "ask", "GW507", "",
     "recursive-readers: grep -R followed scripts/tmplink out of the project"),
    ("echo \\a'${I'", "allow", "GW700", "",
     "bashlex looped forever (until out of memory) on ${ in single quotes after a backslash"),
    ("echo '00000000${'\\0", "allow", "GW700", "", "the same bashlex loop, as generated"),
    ("echo a'$(id)'", "allow", "GW700", "",
     "bashlex read single-quoted text glued to a prefix as unquoted (a false substitution)"),
    ("echo 'a'$(rm -rf /)'b'", "deny", "GW750", "",
     "bashlex hid a substitution between single-quoted strings from the deny rules"),
    ("cat lnk/../etc/passwd", "ask", "GW502", "",
     "symlink-dotdot: .. after a symlink was removed lexically before resolving the link"),
    ("ls lnk/../etc", "ask", "GW502", "", "symlink-dotdot"),
    ("git -C lnk/.. status", "ask", "GW501", "",
     "symlink-dotdot: git -C chdir()s physically; it was tracked lexically"),
    ("cd -P lnk/.. && cat etc/passwd", "ask", "GW711", "", "symlink-dotdot: cd -P"),
    ("cd lnk/.. && cat etc/passwd", "ask", "GW711", "",
     "symlink-dotdot: a logical cd falls back to physical when the logical path is missing"),
    ("bash scripts/tmplink/../run.sh", "ask", "GW502", "",
     "symlink-dotdot: a contained-looking script path that leaves through a link"),
    ("cat src/back/../README.md", "allow", "GW700", "",
     "symlink-dotdot: a link followed by .. that lands inside stays allowed"),
    ("echo $(dd if=/dev/zero \\\nof=/dev/sda)", "deny", "GW750", "",
     "deny-continuation-in-substitution: bashlex cut the words after a continuation in $( )"),
    ("echo \"$(dd \\\n  \"if=/dev/zero\"\t\\o\\f\\=\\/\"d\"ev/sda)\"", "deny", "GW750", "",
     "deny-continuation-in-substitution, as the property suite generated it"),
    ("python3 scripts/foo.py", "allow", "GW600", "",
     "always-ask-interpreters (the other half: a layer adding python3 asks; see "
     "test_monotonicity)"),
    ("ls", "ask", "GW508", "lnk",
     "implicit-cwd-outside: ls in a working directory that is a link out of the project"),
    ("du -a", "ask", "GW508", "lnk", "implicit-cwd-outside: du -a walks an outside ."),
    ("git status", "ask", "GW508", "uplink", "implicit-cwd-outside: git in the parent"),
    ("echo 0 \\$'0000000{'\"\" && ls && ls", "allow", "GW700", "",
     "the quoting property took an escaped dollar before a quote for ANSI-C quoting"),
]
