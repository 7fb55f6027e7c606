"""PreToolUse guards (SPEC §5): they deny or stay silent, never allow.

* ``engine``   evaluate(payload) -> Verdict: every guard in order, the first deny wins
* ``context``  the checked request, the caller's identity and the breezing state
* ``effects``  the Bash analyzer: what a command writes, or why it cannot tell (fail closed);
               a package (``_core``; ``git``, ``programs``, ``wrappers`` loaded on demand)
* ``files``    canonical write targets, escapes, protected paths, ``owns`` globs
* ``role``     lead / implementer / reviewer, registration and no self-escalation
* ``codex``    impl_mode "codex": sessions write only state and Markdown files
* ``delegate`` the Lead in delegate mode (Phase B) uses only the delegate tools

Hook path: standard library only (no click, pydantic or PyYAML); the state is read through
``gateway.state.fast`` and the policy through the compiled cache.
"""
