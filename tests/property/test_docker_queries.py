"""docker's read-only queries (the catalogue's docker entry): generated `docker ps`,
`docker images`, `docker compose ps|logs|ls` lines with the options they may take are
allowed in every mode (plan too: they write nothing); every neighbour asks: a global option
before the subcommand (-H/--host and --context reach another daemon, --config another
credentials file), --format (a template prints labels, which compose fills from .env;
proven in benchmarks/redteam/corpus.tsv), a subcommand that runs, changes or prints a
container's environment."""

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

QUERIES = {
    "ps": ["-a", "--all", "-q", "--no-trunc", "-n 3", "--last=2", "-l", "-s",
           "--filter name=web", "-f status=exited"],
    "images": ["-a", "-q", "--digests", "--filter dangling=true"],
    "compose ps": ["-a", "--services", "--status=running", "-q", "web", "db"],
    "compose logs": ["--tail=50", "-n 20", "-t", "--since 10m", "--no-color",
                     "--no-log-prefix", "web", "worker"],
    "compose ls": ["-a", "-q"],
}
GLOBALS = ["-H tcp://10.0.0.5:2375", "--host=ssh://prod", "--context prod", "-c prod",
           "--config /tmp/cfg", "-D", "--log-level debug", "--tlsverify"]
FORMATS = ["--format '{{.Labels}}'", "--format json", "--format='{{json .}}'",
           "--format table"]
ACTIONS = ["run alpine", "exec web env", "inspect web", "logs web", "rm -f web",
           "compose up -d", "compose down -v", "compose config", "compose exec web sh",
           "compose run web id", "compose pull", "compose build", "system prune -af",
           "cp web:/etc/passwd .", "login", "compose -f /tmp/x.yml ps",
           "compose --env-file .env ps", "compose top", "volume rm x", "context use prod"]


def _v(policy, project, command, mode):
    from gateway.validator.pipeline import validate

    return validate(command, project, project, policy, mode=mode)


@budget(60)
@given(sub=st.sampled_from(sorted(QUERIES)), data=st.data(),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_queries_run(policy, project, sub, data, mode):
    tick("docker:queries")
    opts = data.draw(st.lists(st.sampled_from(QUERIES[sub]), max_size=3, unique=True))
    if sub == "images":
        opts = [o for o in opts if not o.startswith("app")]
    cmd = " ".join(["docker", sub] + opts)
    v = _v(policy, project, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, v.code, v.message)


@budget(60)
@given(sub=st.sampled_from(sorted(QUERIES)), data=st.data(),
       mode=st.sampled_from(["default", "acceptEdits", "plan"]))
def test_a_global_option_or_a_format_asks(policy, project, sub, data, mode):
    tick("docker:neighbours")
    opts = data.draw(st.lists(st.sampled_from(QUERIES[sub]), max_size=2, unique=True))
    if data.draw(st.booleans()):
        cmd = " ".join(["docker", data.draw(st.sampled_from(GLOBALS)), sub] + opts)
    else:
        fmt = data.draw(st.sampled_from(FORMATS))
        opts.insert(data.draw(st.integers(0, len(opts))), fmt)
        cmd = " ".join(["docker", sub] + opts)
    v = _v(policy, project, cmd, mode)
    assert v.decision is ASK, (cmd, v.code, v.message)


@budget(40)
@given(action=st.sampled_from(ACTIONS), mode=st.sampled_from(["default", "acceptEdits",
                                                               "plan"]))
def test_actions_ask(policy, project, action, mode):
    tick("docker:actions")
    v = _v(policy, project, f"docker {action}", mode)
    assert v.decision is ASK, (action, v.code, v.message)
