"""The hub's entry of a checkout's `.mcp.json`, started as Claude Code starts it: the entry's
command, args and env, with the checkout as the working directory (`hub_field.py`,
`hub_worktrees.py`)."""

import json
import os

from mcp.client.stdio import StdioServerParameters


def server_as_written(checkout):
    """The `coordination-hub` entry of `checkout/.mcp.json`, started in `checkout`."""
    with open(os.path.join(checkout, ".mcp.json")) as f:
        entry = json.load(f)["mcpServers"]["coordination-hub"]
    return StdioServerParameters(
        command=entry["command"], args=entry["args"], env=entry.get("env"), cwd=checkout
    )
