"""What the gateway knows about one program that both hooks read, one module per program,
below the validator and the guards (docs/architecture.md): find.py (the files a find
expression lists), gitquery.py (git's own answers: a session of `git` queries without the
user's configuration), gitindex.py (the repository's index and git directory, read without
running git), sed.py, awk.py and jq.py (their program texts). Standard library,
gateway.paths and gateway.shell only."""
