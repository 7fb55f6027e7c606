"""What the gateway knows about one program that both hooks read, one module per program,
below the validator and the guards (docs/architecture.md): find.py (the files a find
expression lists), gitquery.py (git's own answers: a session of `git` queries without the
user's configuration), gitindex.py (the repository's index and git directory, read without
running git), sed.py, awk.py and jq.py (their program texts), recursive.py (how grep -r,
rg, diff -r, git grep and cp -r walk a tree: the validator's phase 5 and the guards' Grep
read it). Standard
library, gateway.paths, gateway.shell and gateway.secrets (the foundation) only."""
