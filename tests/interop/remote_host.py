"""Drives an agent served by the official Python a2a-sdk (`a2a_server.py`) through a host that
fronts it as the remote agent `py`, with the official clients: A2A (a2a-sdk 1.x) and MCP (mcp 2.x).

Usage: python remote_host.py HOST_BASE_URL BINDING
BINDING is JSONRPC or HTTP+JSON (the agent at HOST_BASE_URL/py/) or GRPC (the host's address,
tenant `py`). Over A2A: sends and gets a task, streams an artifact sent in chunks, cancels a
streamed task (the remote's is canceled too), and resubscribes to a running task. With BINDING
JSONRPC, the MCP client also calls the remote's skill as a tool on HOST_BASE_URL/py/mcp and, as
`py_echo`, on the shared HOST_BASE_URL/mcp. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys
import uuid
from contextlib import aclosing

import grpc
import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2
from mcp import Client


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


def request(text: str) -> a2a_pb2.SendMessageRequest:
    return json_format.ParseDict(
        {"message": {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}},
        a2a_pb2.SendMessageRequest(),
    )


async def client_for(base_url: str, binding: str, streaming: bool):
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, f"{base_url}py/").get_agent_card()
    check(card.name == "Python Echo", f"the remote's card, republished: {card.name}")
    check([s.id for s in card.skills] == ["echo"], f"its skills: {card.skills}")
    by_tenant = binding == "GRPC"
    interfaces = [
        i
        for i in card.supported_interfaces
        if i.protocol_version == "1.0" and i.protocol_binding == binding and bool(i.tenant) == by_tenant
    ]
    check(interfaces, f"a 1.0 {binding} interface at the host: {card.supported_interfaces}")
    check(interfaces[0].url.startswith(base_url.split("://", 1)[1].rstrip("/")) or interfaces[0].url.startswith(base_url), f"the host's URL: {interfaces[0].url}")
    del card.supported_interfaces[:]
    card.supported_interfaces.extend(interfaces)
    config = ClientConfig(
        streaming=streaming,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=grpc.aio.insecure_channel,
    )
    return await create_client(card, client_config=config)


async def send_and_get(base_url: str, binding: str) -> None:
    client = await client_for(base_url, binding, False)
    events = [event async for event in client.send_message(request("hi"))]
    check(len(events) == 1 and events[0].HasField("task"), f"one task event, got {events}")
    task = events[0].task
    check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"state {task.status.state}")
    texts = [p.text for a in task.artifacts for p in a.parts]
    check("echo: hi" in texts, f"the remote's artifact: {texts}")
    fetched = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id))
    check(fetched.id == task.id and fetched.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"get_task {fetched}")
    await client.close()


async def stream_chunks(base_url: str, binding: str) -> None:
    client = await client_for(base_url, binding, True)
    chunks = []
    final = None
    async with aclosing(client.send_message(request("drip"))) as events:
        async for event in events:
            kind = event.WhichOneof("payload")
            if kind == "artifact_update":
                chunks.extend(p.text for p in event.artifact_update.artifact.parts if p.text)
            if kind == "status_update":
                final = event.status_update.status.state
    check(chunks == [f"c{i}" for i in range(12)], f"the remote's chunks, in order: {chunks}")
    check(final == a2a_pb2.TASK_STATE_COMPLETED, f"the stream ends completed: {final}")
    await client.close()


async def stream_and_cancel(base_url: str, binding: str) -> None:
    client = await client_for(base_url, binding, True)
    states = []
    task_id = None
    async with aclosing(client.send_message(request("wait"))) as events:
        async for event in events:
            kind = event.WhichOneof("payload")
            first = task_id is None
            if kind == "task":
                task_id = event.task.id
            if kind == "status_update":
                task_id = event.status_update.task_id
                states.append(event.status_update.status.state)
            if first and task_id:
                canceled = await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
                check(canceled.status.state == a2a_pb2.TASK_STATE_CANCELED, f"cancel {canceled.status.state}")
    check(states and states[-1] == a2a_pb2.TASK_STATE_CANCELED, f"stream ended with {states}")
    await client.close()


async def resubscribe(base_url: str, binding: str) -> None:
    client = await client_for(base_url, binding, True)
    task_id = None
    async with aclosing(client.send_message(request("wait"))) as events:
        async for event in events:
            kind = event.WhichOneof("payload")
            if kind == "task":
                task_id = event.task.id
            elif kind == "status_update":
                task_id = event.status_update.task_id
            if task_id:
                break
    check(task_id, "the streamed task's id")
    resumed = []
    async with aclosing(client.subscribe(a2a_pb2.SubscribeToTaskRequest(id=task_id))) as events:
        async for event in events:
            kind = event.WhichOneof("payload")
            resumed.append(kind)
            if kind == "task":
                check(event.task.status.state == a2a_pb2.TASK_STATE_WORKING, f"still working: {event.task.status}")
                await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
            if kind == "status_update" and event.status_update.status.state == a2a_pb2.TASK_STATE_CANCELED:
                break
    check(resumed and resumed[0] == "task", f"the subscription starts with the task: {resumed}")
    await client.close()


async def mcp_calls(base_url: str) -> None:
    async with Client(f"{base_url}py/mcp") as client:
        names = [t.name for t in (await client.list_tools()).tools]
        check(names == ["echo"], f"the remote's skill as a tool on its own endpoint: {names}")
        echoed = await client.call_tool("echo", {"text": "over mcp"})
        texts = [c.text for c in echoed.content if getattr(c, "text", None)]
        check(not echoed.is_error and "echo: over mcp" in texts, f"echo over MCP: {echoed}")
    async with Client(f"{base_url}mcp") as client:
        names = [t.name for t in (await client.list_tools()).tools]
        check("py_echo" in names, f"the remote's tool on the shared endpoint: {names}")
        echoed = await client.call_tool("py_echo", {"text": "shared"})
        texts = [c.text for c in echoed.content if getattr(c, "text", None)]
        check(not echoed.is_error and "echo: shared" in texts, f"echo on the shared endpoint: {echoed}")
    print("mcp ok")


async def main(base_url: str, binding: str) -> None:
    await send_and_get(base_url, binding)
    await stream_chunks(base_url, binding)
    await stream_and_cancel(base_url, binding)
    await resubscribe(base_url, binding)
    print(binding, "a2a ok")
    if binding == "JSONRPC":
        await mcp_calls(base_url)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
