"""End-to-end harness: the real Claude Code client, headless, against a scripted Messages-API mock.

See docs/realclient.md.
"""
