"""A symlink followed by `..` lands where the kernel says, not where the text says: a write
through `h/../settings.json` with h -> .claude/hooks writes .claude/settings.json."""

import os

import pytest

from tests.guards.support import denied


@pytest.fixture()
def hooks_link(proj):
    os.makedirs(os.path.join(proj, ".claude", "hooks"), exist_ok=True)
    link = os.path.join(proj, "h")
    os.symlink(os.path.join(".claude", "hooks"), link)
    return link


def test_file_tool_write_through_link_dotdot_is_denied(guard, proj, hooks_link):
    v = guard("Write", {"file_path": os.path.join(proj, "h", "..", "settings.json"),
                        "content": "{}"})
    assert denied(v, "GW832"), v


@pytest.mark.parametrize("command", [
    "echo '{}' > h/../settings.json",
    "cp /dev/null h/../settings.local.json",
    "cd h/.. && rm settings.json",
])
def test_bash_write_through_link_dotdot_is_denied(guard, proj, hooks_link, command):
    v = guard("Bash", {"command": command})
    assert denied(v, "GW835"), v
