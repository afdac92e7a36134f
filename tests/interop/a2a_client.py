"""Drives a served agent with the official A2A Python SDK (a2a-sdk 1.x) client.

Usage: python a2a_client.py BASE_URL [BINDING]
BINDING is the protocol binding the client is restricted to: JSONRPC (the default), HTTP+JSON or
GRPC (the card's GRPC interface, over an insecure channel: the test server is on loopback).
With A2A_TEST_API_KEY set, every call sends it as `X-API-Key` (HTTP header or gRPC metadata).
Fetches the agent card, sends a structured message and a text message, reads the task back and
lists tasks; then streams a long report, leaves the stream mid-task and resubscribes, and cancels
a streamed task. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import os
import sys
from contextlib import aclosing

import grpc
import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2


API_KEY = os.environ.get("A2A_TEST_API_KEY")


def keyed(details):
    """`details` with the API key added to its metadata."""
    metadata = list(details.metadata or []) + [("x-api-key", API_KEY)]
    return details._replace(metadata=metadata)


# grpc.aio files an interceptor under the first kind it is, so each kind is its own class.
class KeyedUnary(grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):
        return await continuation(keyed(details), request)


class KeyedStream(grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):
        return await continuation(keyed(details), request)


def channel(target: str):
    interceptors = [KeyedUnary(), KeyedStream()] if API_KEY else None
    return grpc.aio.insecure_channel(target, interceptors=interceptors)


def config(streaming: bool, binding: str) -> ClientConfig:
    headers = {"x-api-key": API_KEY} if API_KEY else {}
    return ClientConfig(
        streaming=streaming,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=channel,
        httpx_client=httpx.AsyncClient(headers=headers, timeout=30),
    )


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def main(base_url: str, binding: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    check(card.name == "Currency Agent", f"card name {card.name!r}")
    check([s.id for s in card.skills] == ["chart", "convert", "exchange", "is-supported", "rates", "report"], f"skills {[s.id for s in card.skills]}")
    check(card.supported_interfaces[0].protocol_version == "1.0", "interface version")
    print("card ok:", card.name, card.version)

    client = await create_client(card, client_config=config(False, binding))
    # A hosted agent's gRPC interface names its tenant: the SDK wraps its transport to send it.
    inner = client._transport
    if type(inner).__name__ == "TenantTransportDecorator":
        inner = inner._base
    transport = type(inner).__name__
    check(transport == {"JSONRPC": "JsonRpcTransport", "HTTP+JSON": "RestTransport", "GRPC": "GrpcTransport"}[binding], f"transport {transport}")
    print("binding:", binding, transport)
    request = json_format.ParseDict(
        {
            "message": {
                "messageId": "py-1",
                "role": "ROLE_USER",
                "parts": [{"data": {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}}],
                "metadata": {"skill": "convert"},
            }
        },
        a2a_pb2.SendMessageRequest(),
    )
    events = [event async for event in client.send_message(request)]
    check(len(events) == 1 and events[0].HasField("task"), f"one task event, got {events}")
    task = events[0].task
    check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"state {task.status.state}")
    quote = json_format.MessageToDict(task.artifacts[0].parts[0].data)
    check(quote["currency"] == "EUR" and abs(quote["amount"] - 9.26) < 1e-9, f"quote {quote}")
    print("send ok:", quote)

    text = json_format.ParseDict(
        {"message": {"messageId": "py-2", "role": "ROLE_USER", "parts": [{"text": "chf"}], "metadata": {"skill": "is-supported"}}},
        a2a_pb2.SendMessageRequest(),
    )
    events = [event async for event in client.send_message(text)]
    text_task = events[0].task
    answer = text_task.artifacts[0].parts[0].text
    check(answer == "CHF is supported", f"text answer {answer!r}")

    fetched = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id, history_length=1))
    check(fetched.id == task.id and len(fetched.history) == 1, f"get_task {fetched}")
    listed = await client.list_tasks(a2a_pb2.ListTasksRequest(page_size=10))
    # The server may have served other clients already: this client's two tasks are the newest.
    check([t.id for t in listed.tasks[:2]] == [text_task.id, task.id], f"list_tasks {listed}")
    check(listed.total_size >= 2, f"list_tasks total {listed.total_size}")
    print("get/list ok")
    await client.close()

    await streaming(card, binding)


def report_request(message_id: str, pace_ms: int):
    return json_format.ParseDict(
        {
            "message": {
                "messageId": message_id,
                "role": "ROLE_USER",
                "parts": [{"data": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": pace_ms}}],
                "metadata": {"skill": "report"},
            }
        },
        a2a_pb2.SendMessageRequest(),
    )


def kind(event) -> str:
    return event.WhichOneof("payload")


async def streaming(card, binding: str) -> None:
    # A streaming client: the default for an agent whose card says streaming is on.
    client = await create_client(card, client_config=config(True, binding))

    # Read the stream until the report's first chunk, then leave it.
    seen = []
    async with aclosing(client.send_message(report_request("py-stream-1", 300))) as events:
        async for event in events:
            seen.append(event)
            if kind(event) == "artifact_update":
                break
    check(kind(seen[0]) == "task", f"first event is the task, got {kind(seen[0])}")
    check(seen[0].task.status.state == a2a_pb2.TASK_STATE_SUBMITTED, f"first state {seen[0].task.status.state}")
    task_id = seen[0].task.id
    artifact_id = seen[-1].artifact_update.artifact.artifact_id
    print("stream ok: left after", [kind(e) for e in seen])

    # Resubscribe: a snapshot first, then the rest until the task completes.
    rest = [event async for event in client.subscribe(a2a_pb2.SubscribeToTaskRequest(id=task_id))]
    check(kind(rest[0]) == "task" and rest[0].task.id == task_id, f"resubscribe starts with the task: {rest[0]}")
    check(rest[0].task.status.state == a2a_pb2.TASK_STATE_WORKING, f"snapshot state {rest[0].task.status.state}")
    report = "".join(p.text for a in rest[0].task.artifacts if a.artifact_id == artifact_id for p in a.parts)
    for event in rest[1:]:
        if kind(event) == "artifact_update" and event.artifact_update.artifact.artifact_id == artifact_id:
            check(event.artifact_update.append, "later chunks append")
            report += "".join(p.text for p in event.artifact_update.artifact.parts)
    last = rest[-1]
    check(kind(last) == "status_update", f"last event is a status update: {kind(last)}")
    check(last.status_update.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"final state {last.status_update.status.state}")
    for code in ("USD", "JPY", "GBP"):
        check(f"## {code}" in report, f"section {code} in the report: {report!r}")
    progress = [
        e.status_update.status.message.parts[0].text
        for e in rest
        if kind(e) == "status_update" and e.status_update.status.HasField("message")
    ]
    check(any(p.startswith("Researching") for p in progress), f"progress messages {progress}")
    stored = await client.get_task(a2a_pb2.GetTaskRequest(id=task_id))
    stored_report = "".join(p.text for p in stored.artifacts[0].parts)
    check(stored_report == report, "the stored artifact equals the streamed chunks")
    print("resubscribe ok:", len(rest), "events")

    # Cancel a streamed task: the stream ends with CANCELED.
    states = []
    async with aclosing(client.send_message(report_request("py-stream-2", 60_000))) as events:
        async for event in events:
            if kind(event) == "task":
                task_id = event.task.id
            if kind(event) == "status_update":
                states.append(event.status_update.status.state)
                if len(states) == 1:
                    canceled = await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
                    check(canceled.status.state == a2a_pb2.TASK_STATE_CANCELED, f"cancel result {canceled.status.state}")
    check(states[-1] == a2a_pb2.TASK_STATE_CANCELED, f"stream ended with {states}")
    print("cancel ok")
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "JSONRPC"))
