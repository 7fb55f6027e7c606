"""Task ids and Plans.md sections as the breezing records name them: the small pure pieces
that the progress record (progress.py), the signals (signals.py), Plans.md (plans.py) and
resume (resume.py) all read, in a module below all of them."""

from __future__ import annotations


def task_key(task_id) -> str:
    """A task id for comparison: without a ``task-`` or ``#`` prefix, digits as a number."""
    s = str(task_id).strip()
    low = s.lower()
    for prefix in ("task-", "task_", "#"):
        if low.startswith(prefix):
            s = s[len(prefix):]
            break
    return str(int(s)) if s.isdigit() else s


#: breezing-active.json field (kept by the Lead's metadata model as an extra) listing the
#: Plans.md sections completed by the teams of earlier sessions: they are no longer in
#: plans_md_mapping after a resume, but Phase C must still mark them cc:done.
COMPLETED_FIELD = "completed_sections"


def completed_sections(active) -> list[str]:
    """Sections completed before the last resume (``completed_sections``), in order."""
    raw = (active.model_extra or {}).get(COMPLETED_FIELD) if active is not None else None
    if not isinstance(raw, list):
        return []
    return [str(x) for x in raw if isinstance(x, (str, int)) and not isinstance(x, bool)]


def completion_sections(active) -> list[str]:
    """Every Plans.md section Phase C marks cc:done: those completed before a resume, then
    the mapped ones (duplicates removed, order kept)."""
    out = completed_sections(active) + list(active.plans_md_mapping.values())
    return list(dict.fromkeys(out))
