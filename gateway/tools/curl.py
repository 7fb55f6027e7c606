"""What one `curl` command contacts, reads, writes and asks of the server: the model both
hooks read (the validator's check, gateway.validator.checks.net; the effects analysis for
plan mode, gateway.effects.analysis.programs).

curl is on the ALWAYS_ASK floor. The one form the gateway judges is a request to this
machine's own loopback, the developer's dev server (`curl -s localhost:8000/api/health`):

* every URL it will contact has a loopback host: exactly `localhost` (curl resolves it to
  the loopback itself, without the resolver), an IPv4 literal 127.d.d.d in plain decimal,
  or `[::1]`; the scheme http or https, or none (curl then guesses http for these hosts);
  a port of digits, none of CONTROL_PORTS (the Docker Engine API, a browser's debugging
  port, kubectl proxy...: control APIs, not dev servers). The URL is read as curl reads it (scheme, authority up to the first
  `/`, `?` or `#`, then host and port). Anything that could be read another way asks:
  userinfo (`@` in the authority), a backslash, percent-encoding, whitespace or any other
  character in the host, a trailing dot, other spellings of an address (`2130706433`,
  `0x7f.1`, `0177.0.0.1`, `127.1`), a name that merely starts with one (`localhost.evil.com`,
  `127.0.0.1.nip.io`), curl's URL globbing (`{a,b}`, `[1-9]`, which expand to several URLs,
  also in the host: only `[::1]` as the host is read as the address, as curl does), and
  every other scheme. With no URL at all curl contacts nothing (`curl: no URL specified`)
  unless a configuration file names one (`url = ...`): the check asks whenever curl would
  read one;
* every option is one of an allowlist (OPTIONS, with the role each plays); any other asks,
  named: `-L` follows redirects to any host, `-x` a proxy, `--resolve`/`--connect-to` send
  the loopback name elsewhere, `--unix-socket` reaches a socket (the docker daemon's), `-K`
  reads options from a file, `-u`/`-b`/`-c`/`-n` credentials and cookie files, `-T`/`-F`
  send files, `-O` names its own output... curl takes no `--opt=value` and reads an
  abbreviation of a long option as that option: a long option is only the exact name;
* what it reads: `-d/--data/--data-binary/--data-ascii/--json @FILE`, `--data-urlencode
  [name]@FILE`, `-H @FILE`, `-w @FILE` read FILE (`@-` is standard input): the path is
  judged as any read is (inside the project, no secret);
* what it writes: `-o FILE` and `-D FILE` write FILE (`-` and /dev/null are not files), and
  `-w '%output{FILE}'` (curl 8.3) writes FILE from the format: asked, as a write the model
  does not follow;
* what it asks of the server: GET and HEAD with no data change nothing; a method given with
  `-X` (other than GET or HEAD) or data (-d, --json: POST) may change the dev server's state.

curl also reads the user's own ~/.curlrc (unless -q is first): the user's configuration, as
their shell profile is; a write to it asks like any write outside the project. Variables of
the environment (http_proxy, ALL_PROXY) are the user's; an assignment on the command line
asks (phase 2).

Standard library only (the hook path imports it when a command names curl).
"""

#: Roles of the options curl may be given here (the catalogue lists the same names as the
#: entry's safe_flags / value_flags; tests/agreement keeps the two in step).
FLAG = "flag"          # no value, changes nothing of what is contacted, read or written
HEAD = "head"          # -I: the HEAD method
GET = "get"            # -G: the data goes into the URL's query, the method is GET
GLOBOFF = "globoff"    # -g: no URL globbing ([] and {} are literal)
TEXT = "text"          # a value that is plain text (a timeout, a user agent)
METHOD = "method"      # -X METHOD
HEADER = "header"      # -H 'Name: value', or @FILE (reads FILE)
DATA = "data"          # -d TEXT, or @FILE (reads FILE): POST
DATA_RAW = "data-raw"  # --data-raw TEXT: no @ reading: POST
URLENCODE = "urlencode"  # --data-urlencode [name=]TEXT, [name]@FILE (reads FILE): POST
WRITE_OUT = "write-out"  # -w FORMAT, or @FILE (reads FILE); %output{FILE} writes FILE
OUTPUT = "output"      # -o FILE / -D FILE: writes FILE
URL = "url"            # --url URL

OPTIONS = {
    "-s": FLAG, "--silent": FLAG, "-S": FLAG, "--show-error": FLAG, "-f": FLAG,
    "--fail": FLAG, "--fail-with-body": FLAG, "-i": FLAG, "--include": FLAG, "-v": FLAG,
    "--verbose": FLAG, "-k": FLAG, "--insecure": FLAG, "--compressed": FLAG, "-N": FLAG,
    "--no-buffer": FLAG, "-q": FLAG, "--disable": FLAG, "--no-progress-meter": FLAG,
    "-#": FLAG, "--progress-bar": FLAG, "--http1.0": FLAG, "--http1.1": FLAG,
    "--http2": FLAG, "-4": FLAG, "--ipv4": FLAG, "-6": FLAG, "--ipv6": FLAG,
    "-I": HEAD, "--head": HEAD, "-G": GET, "--get": GET, "-g": GLOBOFF, "--globoff": GLOBOFF,
    "-m": TEXT, "--max-time": TEXT, "--connect-timeout": TEXT, "-A": TEXT,
    "--user-agent": TEXT, "-e": TEXT, "--referer": TEXT, "--retry": TEXT,
    "--retry-delay": TEXT, "--retry-max-time": TEXT, "--max-filesize": TEXT,
    "-X": METHOD, "--request": METHOD, "-H": HEADER, "--header": HEADER,
    "-d": DATA, "--data": DATA, "--data-binary": DATA, "--data-ascii": DATA, "--json": DATA,
    "--data-raw": DATA_RAW, "--data-urlencode": URLENCODE,
    "-w": WRITE_OUT, "--write-out": WRITE_OUT,
    "-o": OUTPUT, "--output": OUTPUT, "-D": OUTPUT, "--dump-header": OUTPUT,
    "--url": URL,
}
#: The roles whose option takes the next word (or the rest of a short cluster) as its value.
VALUED = frozenset((TEXT, METHOD, HEADER, DATA, DATA_RAW, URLENCODE, WRITE_OUT, OUTPUT, URL))

#: Why the options people reach for most are not judged (the message names the real reason).
WHY = {
    "-L": "follows redirects, to any host the server names",
    "--location": "follows redirects, to any host the server names",
    "--location-trusted": "follows redirects to any host, sending the credentials along",
    "-x": "sends the request through a proxy", "--proxy": "sends the request through a proxy",
    "--preproxy": "sends the request through a proxy",
    "--resolve": "makes the host name resolve to another address",
    "--connect-to": "connects to another host than the URL names",
    "--unix-socket": "talks to a Unix socket (the docker daemon's, for one)",
    "--abstract-unix-socket": "talks to an abstract Unix socket",
    "-K": "reads more options from a file", "--config": "reads more options from a file",
    "-n": "reads credentials from ~/.netrc", "--netrc": "reads credentials from ~/.netrc",
    "--netrc-file": "reads credentials from a file",
    "--netrc-optional": "reads credentials from ~/.netrc",
    "-u": "sends credentials", "--user": "sends credentials",
    "-b": "sends cookies, or reads a cookie file", "--cookie": "sends cookies, or reads a "
    "cookie file", "-c": "writes a cookie file", "--cookie-jar": "writes a cookie file",
    "-T": "uploads a file", "--upload-file": "uploads a file",
    "-F": "sends a form whose @FILE and <FILE values read files",
    "--form": "sends a form whose @FILE and <FILE values read files",
    "-E": "reads a client certificate", "--cert": "reads a client certificate",
    "--key": "reads a private key", "--create-dirs": "creates directories",
    "-O": "writes a file named by the URL", "--remote-name": "writes a file named by the URL",
    "--remote-name-all": "writes files named by the URLs",
    "-J": "writes a file named by the server", "--remote-header-name": "writes a file named "
    "by the server", "--output-dir": "writes into another directory",
    "--variable": "sets variables from files or the environment",
    "--expand-url": "expands variables", "-:": "starts another request (--next)",
    "--next": "starts another request", "--libcurl": "writes a C program",
    "--trace": "writes a trace file", "--trace-ascii": "writes a trace file",
    "--stderr": "writes its errors to a file", "--doh-url": "resolves names through another "
    "server", "--dns-servers": "resolves names through other servers",
}

#: Loopback ports where a well-known control API listens, not a dev server: a request there
#: runs containers, code or cluster changes, or prints their secrets. They ask (GW790)
#: whatever the method. Not a complete list of what a loopback port may be (docs/security.md).
CONTROL_PORTS = {
    "2375": "the Docker Engine API (root on the host; `GET /containers/ID/json` prints a "
            "container's environment)",
    "2376": "the Docker Engine API over TLS", "4243": "the Docker Engine API",
    "6443": "a Kubernetes API server", "8001": "`kubectl proxy` (the cluster's API with "
            "your credentials)", "10250": "a kubelet's API", "2379": "etcd",
    "8500": "Consul's HTTP API", "9222": "a browser's remote debugging port (it opens pages "
            "and runs script in them)", "9229": "node's inspector (it runs code)",
    "5037": "the adb server",
}
#: The hosts of this machine's loopback the model accepts (after the IPv4 literals).
_SCHEMES = ("http", "https")
_GLOB = frozenset("[]{}")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")
_READ_ONLY_METHODS = frozenset(("GET", "HEAD"))


class Request:
    """What a curl command does: the URLs it contacts, the files it reads and writes, why
    the request may change the server's state ("" when it does not), and `refusal`, the
    first reason it is not judged: (kind, text) with kind "url" or "option", else None."""

    __slots__ = ("urls", "reads", "writes", "changes", "refusal", "options")

    def __init__(self):
        self.urls = []
        self.reads = []
        self.writes = []
        self.changes = ""
        self.refusal = None
        self.options = []

    def refuse(self, kind, text):
        if self.refusal is None:
            self.refusal = (kind, text)
        return self


def _ipv4_loopback(host) -> bool:
    """127.d.d.d in plain decimal: four parts, 0-255, no leading zero (curl reads 0177 as
    octal, 0x7f as hex, 127.1 and 2130706433 as other spellings: those ask)."""
    parts = host.split(".")
    if len(parts) != 4 or parts[0] != "127":
        return False
    for p in parts:
        if not p or not p.isascii() or not p.isdigit() or len(p) > 3 \
                or (len(p) > 1 and p[0] == "0") or int(p) > 255:
            return False
    return True


def _scheme(url):
    """The scheme curl reads in `url`, or None: letters, digits, +, - and . from a letter,
    then `:` and `/` (curl's test when it may guess the scheme: `localhost:8000/x` has
    none, `localhost:/x` has the scheme "localhost")."""
    k = url.find(":")
    if k <= 0 or not url[k + 1:k + 2] == "/":
        return None
    head = url[:k]
    if not head[0].isalpha() or not all(c.isalnum() or c in "+-." for c in head):
        return None
    return head


def loopback(url, globoff=False):
    """None when curl contacts this machine's loopback for `url`, else why not."""
    if not url:
        return "an empty URL"
    if not url.isascii():
        return f"the URL {url!r} has characters beyond ASCII"
    if any(c <= " " or c == "\x7f" for c in url):
        return f"the URL {url!r} has whitespace or a control character"
    if "\\" in url:
        return f"the URL {url!r} has a backslash, which URL parsers read differently"
    rest = url
    scheme = _scheme(url)
    if scheme is not None:
        if scheme.lower() not in _SCHEMES:
            return f"the URL {url!r} uses the scheme {scheme!r}: only http and https are judged"
        if not url[len(scheme):].startswith("://"):
            return f"the URL {url!r} does not write its scheme as {scheme}://"
        rest = url[len(scheme) + 3:]
    end = len(rest)
    for sep in "/?#":
        k = rest.find(sep)
        if k >= 0:
            end = min(end, k)
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        return f"the URL {url!r} has user information ({authority!r}): which part is the " \
            "host is easy to misread"
    if "%" in authority:
        return f"the URL {url!r} has percent-encoding in its host"
    if authority.startswith("["):
        close = authority.find("]")
        if close < 0:
            return f"the URL {url!r} has an unclosed [ in its host"
        host, port_part = authority[:close + 1], authority[close + 1:]
    else:
        host, _, port = authority.partition(":")
        port_part = ":" + port if _ else ""
    if port_part:
        port = port_part[1:]
        if not port_part.startswith(":") or not port.isdigit() or len(port) > 5:
            return f"the URL {url!r} has a port that is not a number ({port_part!r})"
    if not globoff and any(c in _GLOB for c in tail):
        return f"the URL {url!r} has curl's globbing ([] or {{}}), which expands it to " \
            "several URLs (-g turns it off)"
    port = port_part[1:]
    if port in CONTROL_PORTS:
        return f"the URL {url!r} names port {port}, the usual port of " \
            f"{CONTROL_PORTS[port]}: a control API, not a dev server"
    if host == "[::1]":
        return None
    low = host.lower()
    if not low:
        return f"the URL {url!r} names no host"
    if any(c in _GLOB for c in host):
        return f"the host of {url!r} has curl's globbing ([] or {{}}): it expands to " \
            "several hosts"
    if low == "localhost" or _ipv4_loopback(low):
        return None
    if not all(c in _HOST_CHARS for c in low):
        return f"the host {host!r} of {url!r} is not a plain name"
    return f"the host {host!r} of {url!r} is not this machine's loopback (localhost, " \
        "127.x.x.x, [::1])"


def parse(words):
    """The Request of `curl WORDS` (the words after `curl`)."""
    req = Request()
    method = None
    data = False
    get = False
    globoff = False
    urls = []
    i = 0
    ended = False
    while i < len(words):
        w = words[i]
        i += 1
        if ended or not w.startswith("-") or w == "-":
            if w == "-" and not ended:
                return req.refuse("url", "curl - : a URL named '-'")
            urls.append(w)
            continue
        if w == "--":
            ended = True
            continue
        pairs = []  # (option, value or None)
        if w.startswith("--"):
            role = OPTIONS.get(w)
            if role is None:
                return req.refuse("option", _unknown(w))
            value = None
            if role in VALUED:
                if i >= len(words):
                    return req.refuse("option", f"curl {w} without its value")
                value = words[i]
                i += 1
            pairs.append((w, value))
        else:
            k = 1
            while k < len(w):
                opt = "-" + w[k]
                role = OPTIONS.get(opt)
                if role is None:
                    return req.refuse("option", _unknown(opt, w))
                k += 1
                if role in VALUED:
                    if k < len(w):
                        value = w[k:]
                    elif i < len(words):
                        value = words[i]
                        i += 1
                    else:
                        return req.refuse("option", f"curl {opt} without its value")
                    pairs.append((opt, value))
                    break
                pairs.append((opt, None))
        for opt, value in pairs:
            role = OPTIONS[opt]
            req.options.append(opt)
            if role == HEAD:
                method = method or "HEAD"
            elif role == GET:
                get = True
            elif role == GLOBOFF:
                globoff = True
            elif role == METHOD:
                method = value
            elif role == URL:
                urls.append(value)
            elif role == OUTPUT:
                if value not in ("-", "/dev/null"):
                    req.writes.append(value)
            elif role == HEADER:
                if value.startswith("@"):
                    _read(req, opt, value[1:])
            elif role == DATA:
                data = True
                if value.startswith("@"):
                    _read(req, opt, value[1:])
            elif role == DATA_RAW:
                data = True
            elif role == URLENCODE:
                data = True
                if "=" not in value and "@" in value:
                    _read(req, opt, value.split("@", 1)[1])
            elif role == WRITE_OUT:
                if value.startswith("@"):
                    _read(req, opt, value[1:])
                elif "%output{" in value.lower():
                    return req.refuse("option", f"curl {opt} {value!r}: %output{{FILE}} "
                                      "writes a file from the format (curl 8.3)")
    # no URL: curl contacts nothing ("no URL specified"), unless a configuration file
    # gives one (`url = ...` in ~/.curlrc): the check asks when one exists (-q reads none)
    for u in urls:
        why = loopback(u, globoff)
        if why is not None:
            return req.refuse("url", why)
    req.urls = urls
    if method is not None and method not in _READ_ONLY_METHODS:
        req.changes = f"curl -X {method} may change the server's state"
    elif data and not get:
        req.changes = "curl sends data (a POST), which may change the server's state"
    return req


def _read(req, opt, path):
    if path == "-":
        return  # standard input: what the earlier part of the pipeline prints
    if not path:
        req.refuse("option", f"curl {opt} @: reads a file with no name")
        return
    req.reads.append(path)


def _unknown(opt, word=None) -> str:
    where = f" (in {word!r})" if word and word != opt else ""
    why = WHY.get(opt)
    if why:
        return f"curl {opt}{where} {why}, which the gateway does not judge"
    if opt.startswith("--") and "=" in opt:
        return f"curl {opt}: curl takes no --option=value (the whole word is one option " \
            "name it does not know)"
    return f"curl {opt}{where} is not among the options the gateway judges"
