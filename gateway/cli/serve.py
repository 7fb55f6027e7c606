"""`gateway serve`: answer Claude Code's http hooks from a resident process (gateway.server)."""

import json
import signal
import sys

import click

from gateway import server as srv


def _stop(signum, frame):
    raise KeyboardInterrupt


@click.command("serve")
@click.option("--port", type=click.IntRange(1, 65535), default=srv.DEFAULT_PORT, show_default=True,
              help="TCP port on 127.0.0.1.")
@click.option("--host", default=srv.DEFAULT_HOST, show_default=True,
              help="Only 127.0.0.1 is accepted: the server is for this machine's user alone.")
@click.option("--print-settings", "print_settings", is_flag=True,
              help="Print the http hook entries for Claude Code's settings (what "
                   "`gateway install --http` registers) and exit.")
@click.option("--project", type=click.Path(file_okay=False, exists=True), default=None,
              help="With --print-settings: pin this project directory in the entries.")
@click.option("--no-hook-socket", "no_socket", is_flag=True,
              help="Do not answer `gateway hook` processes on the Unix socket (by default "
                   "they hand their call to this server instead of loading the validator).")
@click.option("-v", "--verbose", is_flag=True, help="Log every request to stderr.")
def command(port, host, print_settings, project, no_socket, verbose):
    """Run the gateway as a local HTTP server for Claude Code's `"type": "http"` hooks.

    It answers POST /hook/<event> with exactly what `gateway hook <event>` would print, without
    a process start per tool call. Requests must carry the per-user bearer token (kept in
    $XDG_STATE_HOME/gateway/serve-token). `gateway install --http` registers every hook
    over http; the PreToolUse guards carry "onFailure": "block", so while this server is
    down (or killed mid-call) every tool call is blocked, never let through unguarded, and
    PermissionRequest falls back to Claude Code's dialog. `gateway doctor` says whether it
    answers. Command hooks (`gateway install` without --http) hand their calls to it too,
    over a Unix socket, and decide themselves when it is down.

    \b
    Examples:
      gateway serve                         listen on 127.0.0.1:8787
      gateway serve --print-settings --project .
    """
    import os

    if print_settings:
        entries = srv.http_hook_entries(port=port, project=os.path.abspath(project)
                                        if project else None)
        click.echo(json.dumps({"hooks": entries}, indent=2))
        return
    try:
        httpd = srv.make_server(port=port, host=host, verbose=verbose)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:
        click.echo(f"gateway serve: cannot listen on {host}:{port}: {exc.strerror or exc}",
                   err=True)
        sys.exit(1)
    listener = None
    if not no_socket:
        try:
            listener = srv.ResidentListener(httpd)
        except OSError as exc:
            httpd.server_close()
            click.echo(f"gateway serve: cannot open the hook socket: {exc}", err=True)
            sys.exit(1)
    srv.warm_up(httpd)
    signal.signal(signal.SIGTERM, _stop)
    click.echo(f"gateway serve: listening on http://{host}:{port}{srv.HOOK_PATH}<event> "
               f"(token: {srv.token_path()})"
               + (f" and {listener.path}" if listener else ""), err=True)
    if listener:
        listener.start()
    try:
        httpd.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        if listener:
            listener.close()
        httpd.server_close()
        click.echo(f"gateway serve: stopped after {httpd.count} decision(s)", err=True)
