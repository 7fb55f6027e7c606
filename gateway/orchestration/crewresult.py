"""Checking a worker's result file (seed 004 フェーズ2 手順 4b-4d, the checks of the seed's
``scripts/validate_result.sh RESULT_PATH PERSONA``).

The file checks (``status`` ``pass`` or ``fail``)::

    the file exists                               else fail
    its last line is <!-- COMPLETE -->            else fail
    at least 20 lines                             else fail
    researcher: a "## Sources" section            else a warning
    coder: a code block (```)                     else a warning

The metadata header -- YAML front matter between ``---`` lines within the first 20 lines --
is checked for its three fields (手順 4d): a missing ``status`` is ``failure`` (the quality is
unknown, so the safe side), a missing ``quality`` is ``YELLOW``, a missing ``completeness``
is ``0``; each default, and each value that is not one of the allowed ones, is a
``metadata_issues`` entry (``quality missing, defaulted to YELLOW``). A file without any
header is judged by the file checks alone (手順 4c's fallback).

The verdict: ``retry`` when the file checks fail or the status is ``partial``/``failure``;
otherwise ``done`` -- with ``record: true`` when there are issues for the execution log's
``metadata_issues``. Only the header is read for the metadata, never the body's content
(the parent session's パス受け渡し係 rule); the body is only counted and searched for the two
markers.
"""

from __future__ import annotations

import os

from gateway.state import store

from .crew import CrewError, persona_of

__all__ = ["PERSONAS", "COMPLETE_MARKER", "MIN_LINES", "check_result", "normalise_persona"]

PERSONAS = ("researcher", "writer", "coder", "reviewer", "default")
COMPLETE_MARKER = "<!-- COMPLETE -->"
MIN_LINES = 20
HEADER_LINES = 20
MAX_RESULT_BYTES = 8 << 20
STATUSES = ("success", "partial", "failure")
QUALITIES = ("GREEN", "YELLOW", "RED")


def normalise_persona(persona: str) -> str:
    """``coder``, ``worker_coder``, ``worker_coder (keyword)`` → ``coder``. Raises
    ``CrewError`` for another persona."""
    p = persona_of(persona) if isinstance(persona, str) and "worker_" in persona else persona
    p = (p or "").strip().lower()
    if p not in PERSONAS:
        raise CrewError(f"persona {store.safe_text(persona, 40)!r} is not one of "
                        f"{', '.join(PERSONAS)} (or worker_<persona>)")
    return p


def _front_matter(lines: list[str]) -> dict | None:
    """The header's fields, or None when there is no header. Only scalar ``key: value``
    lines are read (the first 20 lines)."""
    head = lines[:HEADER_LINES]
    if not head or head[0].strip() != "---":
        return None
    out: dict = {}
    for line in head[1:]:
        if line.strip() == "---":
            return out
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t", "-")):
            out[key.strip()] = value.strip().strip("'\"")
    return None                               # not closed within the first 20 lines


def check_result(path, persona: str) -> dict:
    """The checks and the verdict (see the module docstring) as the JSON object the CLI
    prints. Raises ``CrewError`` for a bad persona or a file that cannot be read safely."""
    persona = normalise_persona(persona)
    path = os.fspath(path)
    out = {"result": path, "persona": persona, "complete_marker": False, "line_count": 0,
           "has_sources": False, "has_code_blocks": False, "status": "pass", "issues": [],
           "result_status": None, "result_quality": None, "result_completeness": None,
           "metadata_issues": [], "header": False}
    try:
        data = store.read_bytes(path, MAX_RESULT_BYTES)
    except store.StateMissing:
        out.update(status="fail", verdict="retry", record=False,
                   issues=["result file not found: the worker must write it at RESULT_PATH"])
        return out
    except store.StateError as e:
        raise CrewError(f"{path} {e.problem}") from None
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    out["line_count"] = text.count("\n")
    if lines and lines[-1].strip() == COMPLETE_MARKER:
        out["complete_marker"] = True
    else:
        out["status"] = "fail"
        out["issues"].append(f"the last line is not {COMPLETE_MARKER}")
    if out["line_count"] < MIN_LINES:
        out["status"] = "fail"
        out["issues"].append(f"fewer than {MIN_LINES} lines (found: {out['line_count']})")
    if persona == "researcher":
        out["has_sources"] = any(ln.startswith("## Sources") for ln in lines)
        if not out["has_sources"]:
            out["issues"].append("warning: no '## Sources' section (researcher)")
    if persona == "coder":
        out["has_code_blocks"] = "```" in text
        if not out["has_code_blocks"]:
            out["issues"].append("warning: no code block (coder)")
    meta = _front_matter(lines)
    verdict = "retry" if out["status"] == "fail" else "done"
    if meta is not None:
        out["header"] = True
        mi = out["metadata_issues"]
        status = meta.get("status") or None
        if status is None:
            status = "failure"
            mi.append("status missing, defaulted to failure")
        elif status not in STATUSES:
            mi.append(f"status {store.safe_text(status, 20)!r} is not success/partial/"
                      f"failure, treated as failure")
            status = "failure"
        quality = meta.get("quality") or None
        if quality is None:
            quality = "YELLOW"
            mi.append("quality missing, defaulted to YELLOW")
        elif quality.upper() not in QUALITIES:
            mi.append(f"quality {store.safe_text(quality, 20)!r} is not GREEN/YELLOW/RED, "
                      f"treated as YELLOW")
            quality = "YELLOW"
        else:
            quality = quality.upper()
        raw = meta.get("completeness")
        completeness = 0
        if raw in (None, ""):
            mi.append("completeness missing, defaulted to 0")
        else:
            try:
                completeness = int(float(str(raw).rstrip("%")))
                if not 0 <= completeness <= 100:
                    raise ValueError
            except ValueError:
                mi.append(f"completeness {store.safe_text(raw, 20)!r} is not 0-100, "
                          f"treated as 0")
                completeness = 0
        out.update(result_status=status, result_quality=quality,
                   result_completeness=completeness)
        if status != "success":
            verdict = "retry"
    out["verdict"] = verdict
    out["record"] = verdict == "done" and bool(out["issues"] or out["metadata_issues"])
    return out
