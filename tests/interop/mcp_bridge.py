"""Drives the A2A bridge with the official MCP Python SDK (mcp 2.x) client over stdio: every tool
of the bridge's reference, against a served currency agent over A2A.

Usage: python mcp_bridge.py BRIDGE AGENT_URL WEBHOOK_URL
BRIDGE is the bridge binary (started with --stdio, its records under A2A_DATA_DIR), AGENT_URL the
currency agent's base URL, WEBHOOK_URL a receiver for its push notifications. Prints the id of
the task it canceled on its last line. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import json
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

TOOLS = [
    "cancel_task",
    "configure_push_notifications",
    "get_extended_agent_card",
    "get_task",
    "list_remote_agents",
    "list_tasks",
    "resolve_agent_card",
    "send_message",
    "send_streaming_message",
    "subscribe_to_task",
    "validate_agent_card",
]


def check(condition, what):
    if not condition:
        raise SystemExit(f"bridge interop failure: {what}")


async def call(client, tool, arguments):
    """The tool's structured result (a list unwrapped from `result`); fails on a tool error."""
    result = await client.call_tool(tool, arguments)
    check(not result.is_error, f"{tool}({arguments}) failed: {result.content}")
    value = result.structured_content
    if isinstance(value, dict) and list(value) == ["result"]:
        return value["result"]
    return value


async def error(client, tool, arguments):
    """The text of the tool error the call must end in."""
    result = await client.call_tool(tool, arguments)
    check(result.is_error, f"{tool}({arguments}) should fail: {result}")
    return "".join(block.text for block in result.content)


async def settle(client, task_id, state):
    for _ in range(100):
        task = await call(client, "get_task", {"task_id": task_id})
        if task["status"]["state"] == state:
            return task
        await asyncio.sleep(0.05)
    raise SystemExit(f"bridge interop failure: task {task_id} never reached {state}: {task}")


def server(bridge):
    # The host starts the bridge with the environment it chooses: its data directory too.
    return StdioServerParameters(command=bridge, args=["--stdio"], env=dict(os.environ))


async def first_session(bridge, agent_url, webhook_url):
    async with Client(server(bridge), mode="legacy") as client:
        names = sorted(t.name for t in (await client.list_tools()).tools)
        check(names == TOOLS, f"tools {names}")

        valid = await call(client, "validate_agent_card", {"base_url": agent_url})
        check(valid["validation"] == "passed", f"validation {valid}")
        check(valid["name"] == "Currency Agent" and valid["protocol_version"] == "1.0", f"card {valid}")
        check(valid["has_skills"] and valid["skill_count"] == 6 and valid["streaming"], f"skills {valid}")
        check(await call(client, "list_remote_agents", {}) == [], "validation registers nothing")

        agent = await call(client, "resolve_agent_card", {"base_url": agent_url})
        agent_id = agent["agent_id"]
        check(agent_id.startswith("agent_currency_agent_"), f"agent id {agent_id}")
        check(agent["status"] == "connected" and agent["card"]["name"] == "Currency Agent", f"agent {agent}")
        again = await call(client, "resolve_agent_card", {"base_url": agent_url + "/"})
        check(again["agent_id"] == agent_id and again["created_at"] == agent["created_at"], f"re-resolved {again}")
        listed = await call(client, "list_remote_agents", {})
        check([a["agent_id"] for a in listed] == [agent_id], f"agents {listed}")

        down = await error(client, "resolve_agent_card", {"base_url": "http://127.0.0.1:9"})
        check(down.startswith("Failed to resolve agent card:"), f"unreachable agent: {down}")
        missing = await error(client, "resolve_agent_card", {"base_url": agent_url + "/nowhere"})
        check(missing == f"No agent card found at {agent_url}/nowhere", f"no card: {missing}")

        # A blocking send: the default skill (convert) reads a JSON object text as its input.
        money = json.dumps({"money": {"amount": 10, "currency": "USD"}, "to": "EUR"})
        done = await call(client, "send_message", {"agent_id": agent_id, "text": money})
        check(done["status"]["state"] == "completed", f"send {done}")
        quote = done["artifacts"][-1]["parts"][0]
        check(quote["kind"] == "data" and quote["data"]["currency"] == "EUR", f"quote {quote}")
        check(done["history"][0]["role"] == "user", f"history {done['history']}")
        unknown = await error(client, "send_message", {"agent_id": "agent_nope", "text": "hi"})
        check(unknown.startswith("Agent not found: agent_nope"), f"unknown agent: {unknown}")
        refused = await error(client, "send_message", {"agent_id": agent_id, "text": "ten dollars"})
        check(refused.startswith("Request failed:"), f"refused input: {refused}")

        # A streamed send that completes, followed by the bridge in the background.
        started = await call(client, "send_streaming_message", {"agent_id": agent_id, "text": money})
        check(started["streaming"] and started["task_id"], f"stream {started}")
        await settle(client, started["task_id"], "completed")
        ended = await call(client, "subscribe_to_task", {"task_id": started["task_id"]})
        check(ended["subscription"] == "ended" and ended["current_state"] == "completed", f"ended {ended}")

        # A long report: webhook, subscription, cancel.
        pushed = await call(client, "configure_push_notifications", {"agent_id": agent_id, "webhook_url": webhook_url})
        check(pushed["active"] and pushed["config_id"].startswith("push_"), f"push {pushed}")
        check(pushed["events"] == ["status_update", "artifact_update"], f"default events {pushed}")
        bad = await error(client, "configure_push_notifications", {"agent_id": agent_id, "webhook_url": webhook_url, "events": ["everything"]})
        check("`everything` is not an event type" in bad, f"bad events: {bad}")
        bad = await error(client, "configure_push_notifications", {"agent_id": agent_id, "webhook_url": "ftp://x"})
        check("webhook_url must be an http or https URL" in bad, f"bad webhook: {bad}")

        report = json.dumps({"pace_ms": 2000})
        long = await call(client, "send_streaming_message", {"agent_id": agent_id, "text": report, "skill": "report"})
        task_id = long["task_id"]
        followed = await call(client, "subscribe_to_task", {"task_id": task_id})
        check(followed["subscription"] == "active", f"subscription {followed}")
        check(followed["current_state"] in ("submitted", "working"), f"subscription {followed}")
        working = await call(client, "get_task", {"task_id": task_id})
        check(working["status"]["state"] == "working", f"running {working}")
        canceled = await call(client, "cancel_task", {"task_id": task_id})
        check(canceled == {"task_id": task_id, "status": "canceled"}, f"cancel {canceled}")
        await settle(client, task_id, "canceled")
        again = await error(client, "cancel_task", {"task_id": task_id})
        check(again.startswith("Request failed:"), f"cancel twice: {again}")
        gone = await error(client, "get_task", {"task_id": "no-such-task"})
        check(gone.startswith("Task not found: no-such-task"), f"unknown task: {gone}")

        newest = await call(client, "list_tasks", {"limit": 1})
        check([t["id"] for t in newest] == [task_id], f"newest {newest}")
        every = await call(client, "list_tasks", {})
        check(len(every) == 3 and all(t["agent_id"] == agent_id for t in every), f"tasks {every}")

        record = await call(client, "get_extended_agent_card", {"agent_id": agent_id})
        check(record["agent_id"] == agent_id and record["card"]["name"] == "Currency Agent", f"record {record}")
        return agent_id, task_id


async def second_session(bridge, agent_id, task_id):
    # A new process, as a desktop host starts per session: the registry is still there.
    async with Client(server(bridge), mode="legacy") as client:
        listed = await call(client, "list_remote_agents", {})
        check([a["agent_id"] for a in listed] == [agent_id], f"agents after restart {listed}")
        task = await call(client, "get_task", {"task_id": task_id})
        check(task["status"]["state"] == "canceled", f"task after restart {task}")


async def main(bridge, agent_url, webhook_url):
    agent_url = agent_url.rstrip("/")
    agent_id, task_id = await first_session(bridge, agent_url, webhook_url)
    await second_session(bridge, agent_id, task_id)
    print(task_id)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
