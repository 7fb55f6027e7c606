"""What a secret is, decided once for both hooks, every tool and the sandbox configuration.

* names.py    the name grammar: env files in every spelling, keys and certificates,
              credential stores, secret directories (data: rules/default.yaml `secrets`);
* sandbox.py  the same data as the client's `sandbox.filesystem.denyRead` patterns.

Standard library only, and nothing is imported here: the hook path imports what it uses.
"""
