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

The workflow commands built on them (``gateway breezing|crew|orch|spec``):

* ``rangesel``, ``registration``, ``prepare`` -- /breezing Phase A: the range, the TaskCreate
  rules (file conflicts, V1-V5), Step 0, the environment check, Step 3 (seed 001)
* ``verify``, ``finish``  -- /breezing Phase C: the verification ladder, Plans.md, cleanup and
  the completion report (seeds 000/001)
* ``crewdirs``, ``crewresult``, ``crewstatus`` -- work/cmd_NNN, result checks, where a command
  stands (seed 004)
* ``orchview``  -- read-only views of agent-coord/ (seed 003)
* ``specsync``, ``specsteps``, ``trackers`` -- spec task sync: a checked task's done step,
  the start/done steps through an issue tracker (seed 002)

Importing this package imports nothing else; the hooks import the modules they need lazily.
"""
