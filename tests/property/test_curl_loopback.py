"""curl to this machine's loopback (issue 25; gateway/tools/curl.py, checks/net.py).

Generated requests to the dev server -- a loopback host (localhost, 127.d.d.d, [::1]) with
or without a scheme and port, a path, options from the allowlist -- run in default and
acceptEdits (GW700), and in plan when they change nothing (GET/HEAD, no data; GW720
otherwise). Every neighbour asks with its exact code, built by construction rather than
by the model's own test: a host that is another machine, a longer name around a loopback
one, another spelling of a loopback address, user information, a backslash, globbing, a
scheme other than http/https (GW790); one option outside the allowlist (GW791). The
dangerous ones are proven in real bash in benchmarks/redteam/corpus.tsv.
"""

import shlex

from hypothesis import given
from hypothesis import strategies as st

from gateway.decision import ALLOW, ASK
from tests.property.conftest import budget
from tests.property.support import tick

MODES = ["default", "acceptEdits", "plan"]
_SEG = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.", min_size=1, max_size=8)
#: options that change nothing the model judges (no value, or a plain-text value)
READ_OPTIONS = ["-s", "-S", "-f", "-sS", "-fsS", "-i", "-v", "-k", "--compressed", "-I",
                "--fail-with-body", "-m 5", "--max-time 10", "--connect-timeout 2",
                "-w '%{http_code}'", "-w '\\n%{time_total}\\n'", "-o /dev/null", "-o -",
                "-H 'Accept: application/json'", "-A gateway-test", "-G -d q=1",
                "-sSo /dev/null", "-D -", "--http1.1", "-X GET", "-X HEAD", "-q"]
#: options that make the request change the server's state (asked in plan only)
WRITE_OPTIONS = ["-X POST", "-X DELETE", "-X PUT", "-d '{\"a\":1}'", "--data-raw x=1",
                 "--json '{\"sku\":\"A\"}'", "-d x=1 -X PATCH", "--data-urlencode a=b"]
#: options outside the allowlist, each with what it takes (GW791)
FOREIGN = ["-L", "--location", "-x http://10.0.0.1:3128", "--proxy http://p:1",
           "--resolve localhost:80:10.0.0.1", "--connect-to ::10.0.0.1:80",
           "--unix-socket /var/run/docker.sock", "-K cfg", "--config cfg", "-n", "--netrc",
           "-u a:b", "--user a:b", "-b c.txt", "-c jar.txt", "-T README.md", "-F a=b",
           "-E cert.pem", "--create-dirs", "-O", "--remote-name", "-J", "--next", "-:",
           "--variable a=b", "--loc", "--silen", "--max-time=5", "-sL", "-Ls", "-fsSL",
           "--libcurl x.c", "--trace t.txt", "--doh-url https://dns.example/q",
           "-w '%output{x.txt}'", "--output-dir /tmp", "--location-trusted", "-Z",
           "--no-silent"]
SCHEMES = ["file", "dict", "gopher", "ftp", "ftps", "telnet", "ldap", "scp", "sftp", "smb",
           "imap", "ws", "mqtt", "tftp", "rtsp", "HTTPX"]


@st.composite
def loopback_url(draw):
    """A URL whose host is this machine's loopback, as a developer writes it."""
    host = draw(st.one_of(
        st.just("localhost"),
        st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(1, 255)).map(
            lambda t: "127.%d.%d.%d" % t),
        st.just("[::1]")))
    from gateway.tools.curl import CONTROL_PORTS  # excluded: GW790 below

    port = draw(st.one_of(st.just(""), st.sampled_from(["8000", "3000", "5173", "8080"]),
                          st.integers(1, 65535).map(str).filter(
                              lambda p: p not in CONTROL_PORTS)))
    port = f":{port}" if port else ""
    scheme = draw(st.sampled_from(["", "http://", "https://", "HTTP://"]))
    if host == "[::1]" and not scheme:
        scheme = "http://"
    path = "/" + "/".join(draw(st.lists(_SEG, max_size=3)))
    query = draw(st.sampled_from(["", "?page=1", "?a=1&b=two", "?debug=1#frag"]))
    return f"{scheme}{host}{port}{path}{query}"


@st.composite
def foreign_url(draw):
    """A URL curl does not send to the loopback for certain: built from a loopback one by
    one change that makes it another host or another reading."""
    port = draw(st.sampled_from(["", ":8000", ":3000"]))
    path = "/" + draw(_SEG)
    scheme = draw(st.sampled_from(["", "http://", "https://"]))
    loop = draw(st.sampled_from(["localhost", "127.0.0.1", "127.1.2.3"]))
    evil = draw(st.sampled_from(["evil.example", "10.0.0.5", "192.0.2.2", "169.254.169.254",
                                 "example.com", "github.com"]))
    kind = draw(st.sampled_from(["other", "suffix", "prefix", "spelling", "userinfo",
                                 "userinfo2", "backslash", "glob", "globhost", "scheme",
                                 "percent", "space", "trailingdot", "v6", "schemeslash",
                                 "control"]))
    if kind == "control":  # a control API on the loopback: the Docker Engine API, a
        # browser's debugging port, node's inspector, kubectl proxy
        control = draw(st.sampled_from(["2375", "2376", "9222", "9229", "8001", "6443"]))
        return f"{scheme}{loop}:{control}{path}"
    if kind == "other":
        return f"{scheme}{evil}{port}{path}"
    if kind == "suffix":
        return f"{scheme}{loop}.{draw(st.sampled_from(['evil.example', 'nip.io', 'sslip.io', 'localdomain']))}{port}{path}"
    if kind == "prefix":
        return f"{scheme}{draw(st.sampled_from(['x', 'my', 'evil-', 'a.']))}{loop}{port}{path}"
    if kind == "spelling":
        spelled = draw(st.sampled_from(["2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1",
                                        "127.1", "127.0.1", "127.000.0.1", "0", "0.0.0.0",
                                        "127.0.0.256", "017700000001", "127.0.0.01"]))
        return f"{scheme}{spelled}{port}{path}"
    if kind == "userinfo":
        return f"{scheme or 'http://'}{loop}{port}@{evil}{path}"
    if kind == "userinfo2":
        return f"{scheme or 'http://'}{evil}@{loop}{port}{path}"
    if kind == "backslash":
        return f"{scheme or 'http://'}{loop}{port}\\@{evil}{path}"
    if kind == "glob":
        return f"{scheme}{loop}{port}{path}/{draw(st.sampled_from(['{a,b}', '[1-9]', 'x[0-2]', '{x}']))}"
    if kind == "globhost":
        return f"{scheme}{draw(st.sampled_from(['{' + loop + ',' + evil + '}', '127.0.0.[1-2]', '{localhost}']))}{port}{path}"
    if kind == "scheme":
        return f"{draw(st.sampled_from(SCHEMES))}://{loop}{port}{path}"
    if kind == "percent":
        return f"{scheme}%6c%6fcalhost{port}{path}"
    if kind == "space":
        return f"{scheme}{loop}{draw(st.sampled_from([' ', chr(9)]))}{port}{path}"
    if kind == "trailingdot":
        return f"{scheme}{loop}.{port}{path}"
    if kind == "v6":
        return f"http://{draw(st.sampled_from(['[::ffff:127.0.0.1]', '[0:0:0:0:0:0:0:1]', '[::1%25lo]', '[::]', '[fe80::1]']))}{port}{path}"
    return f"{draw(st.sampled_from(['http:/', 'http:', 'localhost:/']))}{loop}{path}"


def _v(policy, project, command, mode):
    from gateway.validator.pipeline import validate

    return validate(command, project, project, policy, mode=mode)


def _line(opts, urls, rng):
    words = list(opts) + [shlex.quote(u) for u in urls]
    rng.shuffle(words)  # curl reads options after URLs too
    return "curl " + " ".join(words)


@budget(150)
@given(urls=st.lists(loopback_url(), min_size=1, max_size=3),
       opts=st.lists(st.sampled_from(READ_OPTIONS), max_size=3, unique=True),
       mode=st.sampled_from(MODES), rng=st.randoms(use_true_random=False))
def test_reads_of_the_loopback_run_in_every_mode(policy, project, urls, opts, mode, rng):
    tick("curl:reads")
    cmd = _line(opts, urls, rng)
    v = _v(policy, project, cmd, mode)
    assert (v.decision, v.code) == (ALLOW, "GW700"), (cmd, mode, v.code, v.message)


@budget(100)
@given(url=loopback_url(), opts=st.lists(st.sampled_from(READ_OPTIONS), max_size=2,
                                         unique=True),
       change=st.sampled_from(WRITE_OPTIONS), mode=st.sampled_from(MODES),
       rng=st.randoms(use_true_random=False))
def test_requests_that_change_the_server_ask_in_plan_only(policy, project, url, opts, change,
                                                          mode, rng):
    tick("curl:changes")
    opts = [o for o in opts if o not in ("-I", "-G -d q=1", "-X GET", "-X HEAD")]
    cmd = _line(opts + [change], [url], rng)
    v = _v(policy, project, cmd, mode)
    want = (ASK, "GW720") if mode == "plan" else (ALLOW, "GW700")
    assert (v.decision, v.code) == want, (cmd, mode, v.code, v.message)


@budget(250)
@given(bad=foreign_url(), good=st.lists(loopback_url(), max_size=2),
       opts=st.lists(st.sampled_from(READ_OPTIONS), max_size=2, unique=True),
       mode=st.sampled_from(MODES), rng=st.randoms(use_true_random=False))
def test_every_url_that_is_not_surely_the_loopback_asks(policy, project, bad, good, opts,
                                                        mode, rng):
    tick("curl:foreign-url")
    cmd = _line(opts, good + [bad], rng)
    v = _v(policy, project, cmd, mode)
    assert (v.decision, v.code) == (ASK, "GW790"), (cmd, mode, v.code, v.message)


@budget(200)
@given(url=loopback_url(), foreign=st.sampled_from(FOREIGN),
       opts=st.lists(st.sampled_from(READ_OPTIONS), max_size=2, unique=True),
       mode=st.sampled_from(MODES), rng=st.randoms(use_true_random=False))
def test_every_option_outside_the_allowlist_asks(policy, project, url, foreign, opts, mode,
                                                 rng):
    tick("curl:foreign-option")
    cmd = _line(opts, [url], rng) + " " + foreign  # last: its value cannot be taken by another
    v = _v(policy, project, cmd, mode)
    assert (v.decision, v.code) == (ASK, "GW791"), (cmd, mode, v.code, v.message)
