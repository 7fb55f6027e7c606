"""The orchestration half of the seeds (SPEC §6): how a multi-agent team's work is planned,
tracked, and survives compaction, a resumed session or a crash. Built on ``gateway.state``
(atomic writes, flock locks, strict bounded reads); nothing here writes a file another way.

* ``graph``     -- dependencies → waves, cycles and missing tasks named, cascade skip (seed 004)
* ``team``      -- implementer count, progressive batching (seed 001)
* ``signals``   -- TaskCompleted/TeammateIdle timeline, progress signals, hand-over to the Lead
* ``review``    -- retake counter and escalation, the Phase C fast path (seed 001)
* ``plans``     -- Plans.md markers and sections; the one atomic completion write (seed 000)
* ``tasklist``  -- read-only view of an Agent Teams task list (~/.claude/tasks/{team}/)
* ``resume``    -- `gateway resume`: the previous session, its recovery, Step 3's state changes
* ``restore``   -- what the Lead is told after compaction or a resume (seed 000)
* ``workflow``  -- the spec workflow position in one SQLite file (seed 002)
* ``coord``     -- the orchestrator store under agent-coord/: Session, Task, Run, CAS, claims
                   (seed 003)
* ``crew``      -- execution_log.yaml checkpoints, plan tables, wave progress and ETA (seed 004)

Importing this package imports nothing else; the hooks import the modules they need lazily.
"""
