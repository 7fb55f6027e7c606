"""A long /breezing run is a test (issue 27): 20 Plans.md tasks, three batches, one
REQUEST_CHANGES and its retake (a fix task), a compaction in Phase B with the team's task
list gone, a teammate that starts after `phase B`, and the Lead's session ending -- driven
only through the real entry points: raw JSON payloads on the stdin of `gateway hook ...`
(the shapes of claude-code-hooks.md) and the `gateway` commands, each Bash command first
judged by the PreToolUse hook, run, then shown to the PostToolUse hook, as Claude Code does.

It ends with every task `cc:done` in Plans.md and a completion report that says so.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from .teamrun import TEAM, Run, subjects

N = 20


def plans_md() -> str:
    lines = ["# Plans.md", "", "## 認証機能", ""]
    for i in range(1, N + 1):
        if i == 11:
            lines += ["", "## ユーザー管理", ""]
        lines.append(f"{i}. 機能{i:02d}の実装 `cc:TODO`")
        lines.append(f"   owns: src/f{i:02d}.py")
    return "\n".join(lines) + "\n"


def test_a_long_breezing_run_ends_with_every_task_done(tmp_path, gateway_exe, hook_env):
    r = Run(tmp_path, gateway_exe, hook_env, plans_md())
    lead = "lead-session-1"

    # Step 0 + Phase A: the screen, then the user's yes
    _, out, _ = r.bash(lead, "gateway breezing start --range 全部やって --parallel 3 --no-discuss")
    assert "計 20 タスクを Implementer 3 並列で完走します。" in out
    assert "Progressive Batch: 20 タスクを 3 バッチで登録" in out
    _, out, _ = r.bash(lead, f"gateway breezing start --range 全部やって --parallel 3 "
                             f"--no-discuss --yes --team {TEAM} --json")
    started = json.loads(out)
    assert [e["section"] for e in started["register"]] == [str(i) for i in range(1, 9)]
    sub = subjects(started["register"])
    ids = r.create_tasks(lead, started["register"])

    # the teammates register where teams run: Agent Teams sessions through the Bash channel,
    # the reviewer (an Agent-tool subagent) by SubagentStart
    for n in (1, 2):
        _, out, ctx = r.bash(f"teammate-{n}", f"gateway breezing register implementer "
                                              f"--name impl-{n}")
        assert "registration requested" in out and ctx == ""
    start = r.hook("subagent-start", r.payload("SubagentStart", lead, agent_id="rev-1",
                                               agent_type="claude-code-harness:code-reviewer"))
    assert "registered in the breezing team as reviewer" in \
        start["hookSpecificOutput"]["additionalContext"]
    # the Lead assigns the implementers their files
    for n, glob in ((1, "src/**"), (2, "src/**")):
        r.bash(lead, f"gateway breezing register implementer --owns '{glob}' --name impl-{n}")

    # Phase B: the Lead only coordinates; the third implementer has not started yet
    r.bash(lead, "gateway breezing phase B")
    assert "gateway: not every teammate is registered yet (implementer 2/3); a teammate " \
        in r.last_stderr
    assert r.pre(lead, "Write", {"file_path": str(r.dir / "src/x.py"), "content": "x"})[0] \
        == "deny"
    got = r.write("teammate-1", "src/f01.py")
    assert got[0] is None, got[1]          # an implementer writes
    # a teammate that starts late: not the Lead, no role yet -- it reads and registers
    decision, reason = r.write("teammate-3", "src/f03.py")
    assert decision == "deny" and "GW821" in reason
    r.bash("teammate-3", "gateway breezing register implementer --name impl-3")
    r.bash(lead, "gateway breezing register implementer --owns 'src/**' --name impl-3")
    assert r.write("teammate-3", "src/f03.py")[0] is None

    # batch 1: five of eight completed -> the next batch is recommended
    for i in range(1, 6):
        r.complete(f"teammate-{(i % 3) + 1}", ids[str(i)], sub[str(i)], f"implementer-{(i % 3) + 1}")
    ctx = r.hook("user-prompt-submit", r.payload("UserPromptSubmit", lead, prompt="status?"))
    text = ctx["hookSpecificOutput"]["additionalContext"]
    assert "next_batch_recommended: 5 of 8 tasks of batch 1 completed" in text
    assert "partial_review_recommended" in text
    _, out, _ = r.bash(lead, "gateway breezing batch --json")
    b2 = json.loads(out)
    assert b2["batch"] == 2 and [e["section"] for e in b2["register"]] == \
        [str(i) for i in range(9, 17)]
    sub.update(subjects(b2["register"]))
    ids.update(r.create_tasks(lead, b2["register"]))
    for i in range(6, 9):
        r.complete("teammate-1", ids[str(i)], sub[str(i)], "implementer-1")

    # the Reviewer asks for changes: one retake, a fix task
    _, out, _ = r.bash(lead, "gateway breezing review REQUEST_CHANGES --reviewer reviewer")
    assert "verdict REQUEST_CHANGES: retake; retakes 1 of 3" in out
    fix = r.fix_task(lead, "Fix: validate the login form")

    # compaction in Phase B, and the team's task list is gone
    r.hook("pre-compact", r.payload("PreCompact", lead, trigger="auto", custom_instructions=None))
    shutil.rmtree(r.tasks_root / TEAM)
    restored = r.hook("session-start", r.payload("SessionStart", lead, source="compact"))
    text = restored["hookSpecificOutput"]["additionalContext"]
    assert "run `gateway resume --yes` (allowed in delegate mode" in text
    _, out, _ = r.bash(lead, "gateway resume --yes --json")
    resumed = json.loads(out)
    assert [t["section"] for t in resumed["tasks"]] == [str(i) for i in range(9, 17)]
    assert resumed["completed_sections"] == [str(i) for i in range(1, 9)]
    # the open fix task went with the task list: the resume carries it (by its subject)
    assert resumed["fix_tasks"] == [{"subject": "Fix: validate the login form",
                                     "previous_id": fix}]
    new_register = [{"section": t["section"], "subject": f"{t['section']}. {t['title']}",
                     "description": f"Plans.md {t['section']}"} for t in resumed["tasks"]]
    ids.update(r.create_tasks(lead, new_register))
    sub.update(subjects(new_register))
    # the new team (Agent-tool subagents this time) and delegate mode again
    r.hook("subagent-start", r.payload("SubagentStart", lead, agent_id="impl-a",
                                       agent_type="claude-code-harness:task-worker"))
    r.bash(lead, "gateway breezing register implementer --owns 'src/**' --name impl-a")
    r.bash(lead, "gateway breezing phase B")
    assert r.write(lead, "src/f09.py", agent_id="impl-a")[0] is None
    _, out, _ = r.bash(lead, "gateway breezing status --json")
    assert [e["subject"] for e in json.loads(out)["open_fix_tasks"]] == \
        ["Fix: validate the login form"]
    fix2 = r.fix_task(lead, "Fix: validate the login form")       # the fix task, again
    _, out, _ = r.bash(lead, "gateway breezing status --json")
    assert [e["task_id"] for e in json.loads(out)["open_fix_tasks"]] == [fix2]

    # batch 2 done (the retake included) -> batch 3
    for i in range(9, 17):
        r.complete(lead, ids[str(i)], sub[str(i)], "implementer-a")
    r.complete(lead, fix2, "Fix: validate the login form", "implementer-a")
    _, out, _ = r.bash(lead, "gateway breezing batch --json")
    b3 = json.loads(out)
    assert [e["section"] for e in b3["register"]] == [str(i) for i in range(17, 21)]
    sub.update(subjects(b3["register"]))
    ids.update(r.create_tasks(lead, b3["register"]))
    for i in (17, 18):
        r.complete(lead, ids[str(i)], sub[str(i)], "implementer-a")

    # the Lead's session ends; the user resumes it in a new session
    r.hook("session-end", r.payload("SessionEnd", lead, reason="prompt_input_exit"))
    lead2 = "lead-session-2"
    restored = r.hook("session-start", r.payload("SessionStart", lead2, source="resume"))
    assert "Teammates do not survive a resumed session" in \
        restored["hookSpecificOutput"]["additionalContext"]
    _, out, _ = r.bash(lead2, "gateway resume --yes --json")
    resumed = json.loads(out)
    assert [t["section"] for t in resumed["tasks"]] == ["19", "20"]
    reg3 = [{"section": t["section"], "subject": f"{t['section']}. {t['title']}",
             "description": f"Plans.md {t['section']}"} for t in resumed["tasks"]]
    ids.update(r.create_tasks(lead2, reg3))
    r.bash(lead2, "gateway breezing phase B")
    for i in (19, 20):
        r.complete(lead2, ids[str(i)], f"{i}. 機能{i:02d}の実装", "implementer-b")

    # the final review, Phase C
    _, out, _ = r.bash(lead2, "gateway breezing status --json")
    st = json.loads(out)
    assert st["completed"] == 20 and st["unfinished"] == [] and st["pending_batches"] == []
    _, out, _ = r.bash(lead2, "gateway breezing review APPROVE --grade A")
    assert "verdict APPROVE: approve" in out
    r.bash(lead2, "gateway breezing phase C")
    _, out, _ = r.bash(lead2, "gateway breezing finish")
    assert "cc:done" in out
    plans = (r.dir / "Plans.md").read_text(encoding="utf-8")
    assert plans == plans_md().replace("`cc:TODO`", "`cc:done`")
    code, _, err = r.cli("breezing", "finish", "--cleanup")
    assert code == 1 and "commit" in err                 # the cleanup waits for the commit
    r.git("add", "-A")
    r.git("commit", "-qm", "feat: twenty features")
    _, report, _ = r.bash(lead2, "gateway breezing finish --cleanup")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=r.dir, text=True,
                            capture_output=True, check=True).stdout.strip()
    # the whole report, true to the run: every task, who completed what (the fix task
    # included: 21 completions), one retake, the verdict and the commit; the times vary
    ids_of = lambda *secs: ", ".join(f"#{ids[str(s)]}" for s in secs)  # noqa: E731
    assert re.sub(r"\b\d\d:\d\d\b", "HH:MM", report) == "\n".join([
        "🏇 Breezing Complete!", "", "## Summary", "- 対象: 全部やって (20 タスク)",
        "- 所要時間: 0 分", "- Implementer: 3 並列", "- リテイク: 1 回", "", "## Tasks",
        *[f"✅ {i}. 機能{i:02d}の実装" for i in range(1, N + 1)], "",
        "## Team Activity (TaskCompleted/TeammateIdle Hook - 実装済み)",
        "| Teammate | 完了タスク | 完了時刻 |", "|----------|-----------|---------|",
        f"| Implementer #1 | {ids_of(3, 6, 7, 8)} | {', '.join(['HH:MM'] * 4)} |",
        f"| Implementer #2 | {ids_of(1, 4)} | HH:MM, HH:MM |",
        f"| Implementer #3 | {ids_of(2, 5)} | HH:MM, HH:MM |",
        f"| implementer-a | {ids_of(*range(9, 17))}, #{fix2}, {ids_of(17, 18)} | "
        f"{', '.join(['HH:MM'] * 11)} |",
        f"| implementer-b | {ids_of(19, 20)} | HH:MM, HH:MM |",
        "| Reviewer | (レビュー完了) | HH:MM |", "", "## Review",
        "- 判定: APPROVE (Grade: A)", "- Codex Review: N/A", "", "## Build & Test",
        "- ビルド: — (対象なし)", "- テスト: — (対象なし)", "", "## Commit",
        f"- {commit}: feat: twenty features", "", "楽勝でした 🐎💨", ""])

    assert fix and not (r.dir / ".claude/state/breezing-active.json").exists()
