"""PreToolUse guards (SPEC §5): they deny or stay silent, never allow.

* ``engine``   evaluate(payload) -> Verdict: every guard in order, the first deny wins
* ``context``  the checked request, the caller's identity and the breezing state
* ``reads``    reads of secrets by the file tools, Grep and MCP tools; the early allow
* ``role``     lead / implementer / reviewer, registration and no self-escalation
* ``codex``    impl_mode "codex": sessions write only state and Markdown files
* ``delegate`` the Lead in delegate mode (Phase B) uses only the delegate tools

What a command does (the effects analysis, the protected surface, the write judgement) is
gateway.effects, below the guards and the validator, which both read it; the guards consult
the validator only through the `judge` their caller hands them (gateway.runtime).

Hook path: standard library only (no click, pydantic or PyYAML); the state is read through
``gateway.state.fast`` and the policy through the compiled cache.
"""
