"""Drives a server hosting several agents (examples/agent-host) with the official A2A Python SDK
(a2a-sdk 1.x) client.

Usage: python host_client.py BASE_URL ADDRESSING BINDING
ADDRESSING is `path` (each agent at BASE_URL{id}/, as its card's first interfaces say) or
`tenant` (the interfaces at BASE_URL with the agent's id as tenant, which the client copies into
every request). BINDING is JSONRPC, HTTP+JSON or GRPC (by tenant only: a gRPC path names the
service, so the card offers gRPC at the host's address with the agent's id as the tenant). For the currency and hello agents: reads the
card, sends, gets, lists and streams; cancels a streamed currency task, and a completed greeting
(refused: it finished); and checks that a task of one agent is not found through the other and
that lists never mix. Exits non-zero (with the
reason) on any mismatch.
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


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


def request(skill: str, data: dict) -> a2a_pb2.SendMessageRequest:
    return json_format.ParseDict(
        {
            "message": {
                "messageId": str(uuid.uuid4()),
                "role": "ROLE_USER",
                "parts": [{"data": data}],
                "metadata": {"skill": skill},
            }
        },
        a2a_pb2.SendMessageRequest(),
    )


SENDS = {
    "currency": ("convert", {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}),
    "hello": ("greet", {"name": "Ada"}),
}


def addressed(card, addressing: str, agent: str, base_url: str):
    """The card as a client addressing the agent this way sees it: only those interfaces."""
    interfaces = [
        i
        for i in card.supported_interfaces
        if i.protocol_version == "1.0" and (bool(i.tenant) == (addressing == "tenant"))
    ]
    expected = ["JSONRPC", "HTTP+JSON", "GRPC"] if addressing == "tenant" else ["JSONRPC", "HTTP+JSON"]
    check([i.protocol_binding for i in interfaces] == expected, f"{agent}: 1.0 interfaces for {addressing}: {card.supported_interfaces}")
    address = base_url.split("://", 1)[1].rstrip("/")
    for interface in interfaces:
        if addressing == "tenant":
            check(interface.tenant == agent, f"{agent}: tenant {interface.tenant!r}")
            shared = address if interface.protocol_binding == "GRPC" else base_url.rstrip("/")
            check(interface.url.rstrip("/") == shared, f"{agent}: shared URL {interface.url}")
        else:
            check(interface.url.rstrip("/") == f"{base_url}{agent}", f"{agent}: own URL {interface.url}")
    del card.supported_interfaces[:]
    card.supported_interfaces.extend(interfaces)
    return card


async def client_for(base_url: str, addressing: str, agent: str, binding: str, streaming: bool):
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, f"{base_url}{agent}/").get_agent_card()
    card = addressed(card, addressing, agent, base_url)
    config = ClientConfig(
        streaming=streaming,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=grpc.aio.insecure_channel,
    )
    return await create_client(card, client_config=config)


async def main(base_url: str, addressing: str, binding: str) -> None:
    clients = {agent: await client_for(base_url, addressing, agent, binding, False) for agent in SENDS}
    sent = {}
    for agent, (skill, data) in SENDS.items():
        events = [event async for event in clients[agent].send_message(request(skill, data))]
        check(len(events) == 1 and events[0].HasField("task"), f"{agent}: one task event, got {events}")
        task = events[0].task
        check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"{agent}: state {task.status.state}")
        fetched = await clients[agent].get_task(a2a_pb2.GetTaskRequest(id=task.id))
        check(fetched.id == task.id, f"{agent}: get_task {fetched.id}")
        sent[agent] = task.id
    print(addressing, binding, "send/get ok:", sent)

    # A task of one agent is not found through the other.
    for agent, other in (("currency", "hello"), ("hello", "currency")):
        try:
            await clients[other].get_task(a2a_pb2.GetTaskRequest(id=sent[agent]))
        except Exception as error:  # the SDK raises its not-found error
            check("not found" in str(error).lower(), f"{agent}'s task through {other}: {error}")
        else:
            raise SystemExit(f"interop failure: {agent}'s task found through {other}")
    # Lists never mix: each agent lists its own task and none of the other's.
    for agent, other in (("currency", "hello"), ("hello", "currency")):
        listed = await clients[agent].list_tasks(a2a_pb2.ListTasksRequest(page_size=100))
        ids = [t.id for t in listed.tasks]
        check(sent[agent] in ids, f"{agent} lists its task: {ids}")
        check(sent[other] not in ids, f"{agent} lists none of {other}'s tasks: {ids}")
    print(addressing, binding, "isolation ok")

    # Streaming, and cancelling a streamed task, on the currency agent.
    streaming = await client_for(base_url, addressing, "currency", binding, True)
    report = request("report", {"currencies": ["USD", "JPY"], "pace_ms": 60_000})
    states = []
    task_id = None
    async with aclosing(streaming.send_message(report)) as events:
        async for event in events:
            kind = event.WhichOneof("payload")
            if kind == "task":
                task_id = event.task.id
            if kind == "status_update":
                states.append(event.status_update.status.state)
                if len(states) == 1:
                    canceled = await streaming.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
                    check(canceled.status.state == a2a_pb2.TASK_STATE_CANCELED, f"cancel {canceled.status.state}")
    check(states[-1] == a2a_pb2.TASK_STATE_CANCELED, f"stream ended with {states}")
    greeting = await client_for(base_url, addressing, "hello", binding, True)
    events = [e async for e in greeting.send_message(request("greet", {"name": "Grace"}))]
    check(events and events[-1].WhichOneof("payload") in ("task", "status_update"), f"hello stream {events}")
    # Cancelling reaches the hello agent too: its greeting already completed, so it says so.
    try:
        await clients["hello"].cancel_task(a2a_pb2.CancelTaskRequest(id=sent["hello"]))
    except Exception as error:  # the SDK raises its not-cancelable error
        check("cancel" in str(error).lower(), f"cancel of a completed greeting: {error}")
    else:
        raise SystemExit("interop failure: a completed greeting was canceled")
    print(addressing, binding, "stream/cancel ok")
    for client in [*clients.values(), streaming, greeting]:
        await client.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
