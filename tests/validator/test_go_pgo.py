"""go's -pgo=FILE reads a profile (go >= 1.21): the file is a path the command reads, judged
as every read is (red team, session 5: `go build -pgo=.env` and `-pgo=~/.aws/credentials`
were allowed with no path check); auto/off/default name no file. In GOFLAGS (the
environment or the go env file, also given before the command) the path asks GW761."""

import pytest

from gateway.runtime import get_policy
from gateway.settings import SettingsRules
from gateway.validator.pipeline import validate


@pytest.fixture
def project(tmp_path):
    (tmp_path / "go.mod").write_text("module x\n\ngo 1.21\n")
    (tmp_path / ".env").write_text("S=1\n")
    (tmp_path / "default.pgo").write_text("profile\n")
    return str(tmp_path)


def _judge(project, command):
    v = validate(command, project, project, get_policy(project), "Bash", SettingsRules(), None)
    return v.decision.name, v.code


@pytest.mark.parametrize("command,want", [
    ("go build -pgo=.env ./...", ("ASK", "GW503")),
    ("go build -pgo .env ./...", ("ASK", "GW503")),
    ("go test -pgo=/etc/passwd ./...", ("ASK", "GW501")),
    ("GOFLAGS=-pgo=.env go build ./...", ("ASK", "GW761")),
    ("go build -pgo=default.pgo ./...", ("ALLOW", "GW700")),
    ("go build -pgo=auto ./...", ("ALLOW", "GW700")),
    ("go test -pgo=off ./...", ("ALLOW", "GW700")),
])
def test_the_profile_is_a_read(project, command, want):
    assert _judge(project, command) == want
