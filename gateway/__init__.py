"""gateway: a permission gateway for AI coding agents.

Registered as Claude Code's hooks, it decides for every tool call whether it may run without a
human (allow), needs the human (ask) or must never run (deny).
"""

__version__ = "0.1.0"
