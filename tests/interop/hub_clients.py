"""Three coding agents coordinate through the coordination hub with the official clients:
ann with the MCP Python SDK (mcp 2.x) over stdio (a hub process of her own, sharing the data
directory with the HTTP hub), bob with the MCP SDK over streamable HTTP, carl with the A2A Python
SDK (a2a-sdk 1.x) over JSON-RPC.

Usage: python hub_clients.py HUB_BINARY BASE_URL DATA_DIR
HUB_BINARY is the hub (started here with --stdio --data-dir DATA_DIR), BASE_URL the HTTP hub's
base URL (serving over DATA_DIR too). Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import json
import sys
from contextlib import aclosing

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import ResourceTemplateReference

PROJECT = "shop"


def check(condition, what):
    if not condition:
        raise SystemExit(f"hub interop failure: {what}")


class McpAgent:
    """An agent calling the hub's tools over MCP."""

    def __init__(self, name, client):
        self.name, self.client = name, client

    async def call(self, tool, **arguments):
        result = await self.client.call_tool(tool, {"project_id": PROJECT, **arguments})
        check(not result.is_error, f"{self.name}: {tool}({arguments}) failed: {result.content}")
        value = result.structured_content
        if isinstance(value, dict) and list(value) == ["result"]:
            return value["result"]
        return value

    async def refused(self, tool, **arguments):
        """The structured details of the error the call must end in."""
        result = await self.client.call_tool(tool, {"project_id": PROJECT, **arguments})
        check(result.is_error, f"{self.name}: {tool}({arguments}) should fail: {result}")
        return result.structured_content


class A2aAgent:
    """An agent calling the hub's skills over A2A: a data part naming the skill."""

    def __init__(self, name, client, streaming):
        self.name, self.client, self.streaming, self.sent = name, client, streaming, 0

    def request(self, skill, arguments):
        self.sent += 1
        return json_format.ParseDict(
            {
                "message": {
                    "messageId": f"{self.name}-{self.sent}",
                    "role": "ROLE_USER",
                    "parts": [{"data": {"project_id": PROJECT, **arguments}}],
                    "metadata": {"skill": skill},
                }
            },
            a2a_pb2.SendMessageRequest(),
        )

    async def follow_until(self, content, start):
        """Follows the inbox over a stream, calls `start` once it is open, and returns the
        pushed message whose content is `content`; cancels the following task."""
        request = self.request("follow_inbox", {"session_name": self.name, "for_seconds": 30})
        task_id, started = None, False
        async with aclosing(self.streaming.send_message(request)) as events:
            async for event in events:
                if event.HasField("task"):
                    task_id = event.task.id
                elif event.HasField("status_update"):
                    task_id = event.status_update.task_id
                if not started:
                    started = True
                    await start()
                if event.HasField("artifact_update"):
                    for part in event.artifact_update.artifact.parts:
                        message = json_format.MessageToDict(part.data)
                        if message.get("content") == content:
                            await self.client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
                            return message
        raise SystemExit(f"hub interop failure: the stream ended without {content!r}")

    async def send(self, skill, arguments):
        request = self.request(skill, arguments)
        events = [event async for event in self.client.send_message(request)]
        check(len(events) == 1 and events[0].HasField("task"), f"{skill}: one task, got {events}")
        return events[0].task

    async def call(self, skill, **arguments):
        task = await self.send(skill, arguments)
        check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"{self.name}: {skill} ended {task.status}")
        artifact = next(a for a in task.artifacts if a.name == skill)
        return json_format.MessageToDict(artifact.parts[0].data)

    async def refused(self, skill, **arguments):
        task = await self.send(skill, arguments)
        check(task.status.state == a2a_pb2.TASK_STATE_FAILED, f"{self.name}: {skill} should fail: {task.status}")
        data = [p.data for p in task.status.message.parts if p.HasField("data")]
        check(data, f"{skill}: the failure carries its details: {task.status}")
        return json_format.MessageToDict(data[0])


async def answer_first_query(agent, asker):
    """Waits for a query from `asker` in the agent's inbox and answers it."""
    for _ in range(200):
        unread = await agent.call("check_messages", session_name=agent.name)
        queries = [m for m in unread if m["type"] == "query" and m["from"] == asker]
        if queries:
            await agent.call(
                "respond_to_query",
                from_session=agent.name,
                to_session=asker,
                message_id=queries[0]["id"],
                response=f"{agent.name} says: id, email, role",
            )
            return queries[0]
        await asyncio.sleep(0.05)
    raise SystemExit(f"hub interop failure: no query from {asker} reached {agent.name}")


async def scenario(ann, bob, carl, base):
    for agent, task in ((ann, "001"), (bob, "002"), (carl, "003")):
        registered = await agent.call(
            "register_agent", session_name=agent.name, task_id=task, branch=f"feature/{agent.name}", description=f"{agent.name}'s part"
        )
        check(registered["status"] == "registered", f"{agent.name} registered: {registered}")
    for agent in (ann, bob, carl):
        active = await agent.call("list_active_agents")
        check(sorted(active) == ["ann", "bob", "carl"], f"{agent.name} sees everyone: {active}")
    print("register ok")

    # A lock conflicts, names its holder, and is released.
    await ann.call("announce_file_change", session_name="ann", file_path="src/models/user.ts", change_type="create", description="User model")
    conflict = await bob.refused("announce_file_change", session_name="bob", file_path="src/models/user.ts", change_type="modify", description="profiles")
    check(conflict["status"] == "conflict" and conflict["lock_info"]["session"] == "ann", f"conflict {conflict}")
    await ann.call("release_file_lock", session_name="ann", file_path="src/models/user.ts")
    await bob.call("announce_file_change", session_name="bob", file_path="src/models/user.ts", change_type="modify", description="profiles")
    # A glob reservation blocks a matching path, across protocols.
    await carl.call("announce_file_change", session_name="carl", file_path="src/api/**", change_type="refactor", description="routes")
    blocked = await bob.refused("announce_file_change", session_name="bob", file_path="src/api/users.ts", change_type="modify", description="x")
    check(blocked["lock_info"]["file_path"] == "src/api/**", f"glob conflict {blocked}")
    blocked = await carl.refused("announce_file_change", session_name="carl", file_path="src/models/*.ts", change_type="modify", description="y")
    check(blocked["lock_info"]["session"] == "bob", f"A2A sees the conflict: {blocked}")
    changes = await bob.call("get_recent_changes", limit=10)
    check([c["session"] for c in changes[:3]] == ["carl", "bob", "ann"], f"recent changes {changes}")
    print("locks ok")

    # carl asks ann over A2A and waits; ann answers from her stdio hub.
    asking = asyncio.create_task(
        carl.call("query_agent", from_session="carl", to_session="ann", query_type="interface", query="What fields does User have?", wait_for_response=True, timeout=30)
    )
    query = await answer_first_query(ann, "carl")
    answered = await asking
    check(answered["status"] == "received" and answered["response"] == "ann says: id, email, role", f"answer {answered}")
    check(answered["message_id"] == query["id"], f"answer names the query: {answered}")
    # And bob (MCP over HTTP) asks carl (A2A), who answers.
    asking = asyncio.create_task(
        bob.call("query_agent", from_session="bob", to_session="carl", query_type="status", query="Routes done?", timeout=30)
    )
    await answer_first_query(carl, "bob")
    answered = await asking
    check(answered["response"] == "carl says: id, email, role", f"answer {answered}")
    print("questions ok")

    # bob follows his inbox; ann broadcasts from her own process.
    inbox = f"hub://projects/{PROJECT}/inbox/bob"
    await bob.call("check_messages", session_name="bob")
    async with bob.client.listen(resource_subscriptions=[inbox]) as sub:
        check(list(sub.honored.resource_subscriptions or []) == [inbox], f"honored {sub.honored}")
        sent = await ann.call("broadcast_message", session_name="ann", message_type="warning", content="Refactoring User")
        check(sent["recipients"] == 2, f"broadcast {sent}")
        event = await asyncio.wait_for(sub.__anext__(), 10)
        check(inbox in repr(event), f"inbox event {event}")
    read = await bob.client.read_resource(inbox)
    messages = json.loads(read.contents[0].text)
    check(messages[0]["content"] == "Refactoring User" and not messages[0]["read"], f"inbox {messages}")
    unread = await carl.call("check_messages", session_name="carl")
    check([m["content"] for m in unread if m["type"] == "broadcast"] == ["Refactoring User"], f"carl's inbox {unread}")
    # carl follows his inbox over an A2A stream: ann's next broadcast, written by her stdio
    # process, is pushed to him.
    async def broadcast():
        await ann.call("broadcast_message", session_name="ann", message_type="info", content="Pushed to carl")

    pushed = await carl.follow_until("Pushed to carl", broadcast)
    check(pushed["from"] == "ann" and pushed["type"] == "broadcast", f"pushed {pushed}")
    print("inbox ok")

    # Todos and interfaces, per project.
    added = await ann.call("add_todo", session_name="ann", todo_item="Design User schema", priority=1)
    await ann.call("add_todo", session_name="ann", todo_item="Write tests", priority=3)
    await ann.call("update_todo", session_name="ann", todo_id=added["todo_id"], status="completed")
    everyone = await carl.call("get_all_todos")
    check(everyone["ann"]["total_todos"] == 2 and everyone["ann"]["completed"] == 1, f"todos {everyone}")
    check(everyone["bob"]["total_todos"] == 0, f"bob has none: {everyone}")
    await carl.call("register_interface", session_name="carl", interface_name="User", definition="interface User { id: string }", file_path="src/types/user.ts")
    interfaces = await ann.call("list_interfaces")
    check(list(interfaces) == ["User"] and interfaces["User"]["registered_by"] == "carl", f"interfaces {interfaces}")
    missing = await bob.refused("query_interface", interface_name="Usr")
    check(missing["status"] == "not_found" and missing["similar"] == ["User"], f"similar names {missing}")
    template = ResourceTemplateReference(type="ref/resource", uri="hub://projects/{project_id}/interfaces/{interface_name}")
    offered = await bob.client.complete(template, {"name": "interface_name", "value": "u"}, context_arguments={"project_id": PROJECT})
    check(offered.completion.values == ["User"], f"completion {offered}")
    other = await bob.client.call_tool("list_interfaces", {"project_id": "elsewhere"})
    check(other.structured_content == {}, f"another project has none: {other.structured_content}")
    print("todos and interfaces ok")

    left = await ann.call("unregister_agent", session_name="ann")
    check(left["todo_summary"] == {"total": 2, "completed": 1, "pending": 1, "in_progress": 0, "blocked": 0}, f"unregister {left}")
    active = await bob.call("list_active_agents")
    check(sorted(active) == ["bob", "carl"], f"after ann left {active}")
    print("unregister ok")


async def main(hub, base, data_dir):
    stdio = StdioServerParameters(command=hub, args=["--stdio", "--data-dir", data_dir])
    async with Client(stdio) as ann_client, Client(base + "mcp") as bob_client:
        async with httpx.AsyncClient(timeout=60) as http:
            card = await A2ACardResolver(http, base).get_agent_card()
            # The reference's 18 tools, and follow_inbox, check_file, check_files, check_branch
            # and project_overview.
            check(card.name == "Coordination Hub" and len(card.skills) == 23, f"card {card.name} {len(card.skills)}")
            a2a = await create_client(card, client_config=ClientConfig(streaming=False, httpx_client=http))
            streaming = await create_client(card, client_config=ClientConfig(streaming=True, httpx_client=http))
            carl = A2aAgent("carl", a2a, streaming)
            await scenario(McpAgent("ann", ann_client), McpAgent("bob", bob_client), carl, base)
            await a2a.close()
            await streaming.close()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
