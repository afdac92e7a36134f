"""Two coding agents use the coordination hub as `coordination-hub init` configured it: the
official MCP Python SDK (mcp 2.x) starts the hub exactly as the generated `.mcp.json` says
(command, args and env, in the repository), once per agent, as Claude Code does.

Checks what a model depends on: the instructions and prompts, registering without a
`project_id`, a conflict whose text content (all Claude Code and Cursor show a model) is the
JSON of its structured content and names the holder, a list returned as a list, and an agent
whose host exits: its reservations are released at once and the other agent is told.

Usage: python hub_field.py REPOSITORY
Exits non-zero (with the reason) on any mismatch; prints how long the release took.
"""

import asyncio
import json
import os
import sys
import time
from contextlib import AsyncExitStack

from mcp import Client

from hub_entry import server_as_written


def check(condition, what):
    if not condition:
        raise SystemExit(f"hub field failure: {what}")


def text_of(result):
    texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    check(len(texts) == 1, f"one text block: {result.content}")
    return texts[0]


async def call(client, tool, **arguments):
    result = await client.call_tool(tool, arguments)
    check(not result.is_error, f"{tool}({arguments}) failed: {result.content}")
    return result


async def told_and_released(bob, started):
    """Waits (at most 10 s) until bob holds ann's file and was told she left: the seconds."""
    told = False
    while time.monotonic() - started < 10:
        result = await bob.call_tool(
            "announce_file_change",
            {"session_name": "bob", "file_path": "src/app.rs", "change_type": "modify",
             "description": "bob's turn"},
        )
        if not told:
            messages = json.loads(text_of(await call(bob, "check_messages", session_name="bob")))
            told = any(m["message_type"] == "agent_left" and m["from"] == "ann" for m in messages)
        if told and not result.is_error:
            return time.monotonic() - started
        await asyncio.sleep(0.05)
    raise SystemExit("hub field failure: ann's reservation was not released within 10 s")


async def main(repository):
    project = os.path.basename(repository.rstrip("/"))
    # bob's host opens first, so ann's (inside it) can exit first: task scopes close in order.
    async with Client(server_as_written(repository)) as bob, AsyncExitStack() as ann_stack:
        ann = await ann_stack.enter_async_context(Client(server_as_written(repository)))

        check("register_agent" in (ann.instructions or ""), f"instructions: {ann.instructions}")
        prompts = {p.name for p in (await ann.list_prompts()).prompts}
        check({"start_task", "status", "finish_task"} <= prompts, f"prompts: {prompts}")
        start = await ann.get_prompt("start_task", {"session_name": "ann", "task": "the API"})
        check("register_agent" in start.messages[0].content.text, f"start_task: {start}")

        for name in ("ann", "bob"):
            client = ann if name == "ann" else bob
            registered = await call(client, "register_agent", session_name=name, task_id="1",
                                    branch="main", description=f"{name}'s work")
            check(registered.structured_content["project_id"] == project,
                  f"the default project is the repository's: {registered.structured_content}")
        await call(ann, "announce_file_change", session_name="ann", file_path="src/**",
                   change_type="modify", description="ann rewrites src")

        refused = await bob.call_tool(
            "announce_file_change",
            {"session_name": "bob", "file_path": "src/app.rs", "change_type": "modify",
             "description": "bob edits the app"},
        )
        check(refused.is_error, f"bob is refused: {refused}")
        text = text_of(refused)
        check("ann" in text, f"the model reads who holds the file: {text}")
        check(json.loads(text) == refused.structured_content,
              f"the text is the structured content: {text} vs {refused.structured_content}")
        check(refused.structured_content["lock_info"]["session"] == "ann", f"{text}")

        changes = json.loads(text_of(await call(bob, "get_recent_changes")))
        check(isinstance(changes, list) and changes[0]["session"] == "ann",
              f"a list reads as a list: {changes}")

        started = time.monotonic()
        await ann_stack.aclose()  # ann's host exits: it closes the hub's stdin
        took = await told_and_released(bob, started)
        check(took < 1.0, f"released and told within a second, not {took:.2f} s")
        print(f"ann's reservation released and bob told {took * 1000:.0f} ms after her host exited")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
