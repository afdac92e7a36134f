"""Drives a served agent with the official A2A Python SDK 0.3.x client (the generation most
deployed clients still use: `message/send`, `kind` discriminators, lower-case states).

Usage: python a2a_v03_client.py BASE_URL BINDING
BINDING is the 0.3 transport the client is restricted to: JSONRPC or HTTP+JSON. The client reads
the hybrid agent card, sends a structured and a text message, reads a task back, streams a long
report and resubscribes to it mid-task, and cancels a streamed task. Exits non-zero (with the
reason) on any mismatch. Runs in its own virtualenv (scripts/test creates .venv03) because 0.3 and
1.x install the same `a2a` package.
"""

import asyncio
import sys
from contextlib import aclosing

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
from a2a.types import (
    DataPart,
    Message,
    Part,
    Role,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure (0.3): {what}")


def message(message_id: str, skill: str, part) -> Message:
    return Message(message_id=message_id, role=Role.user, parts=[Part(root=part)], metadata={"skill": skill})


def client_for(card, http, binding: str, streaming: bool):
    config = ClientConfig(streaming=streaming, httpx_client=http, supported_transports=[binding])
    client = ClientFactory(config).create(card)
    transport = type(client._transport).__name__
    expected = {"JSONRPC": "JsonRpcTransport", "HTTP+JSON": "RestTransport"}[binding]
    check(transport == expected, f"transport {transport}, wanted {expected}")
    return client


async def main(base_url: str, binding: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        check(card.name == "Currency Agent", f"card name {card.name!r}")
        check(card.protocol_version.startswith("0.3"), f"card protocolVersion {card.protocol_version!r}")
        check(card.url == base_url, f"card url {card.url!r}")
        check([s.id for s in card.skills] == ["chart", "convert", "exchange", "is-supported", "rates", "report"], f"skills {[s.id for s in card.skills]}")
        print("card ok:", card.name, card.protocol_version, card.preferred_transport)

        await blocking(client_for(card, http, binding, streaming=False))
        await streaming(client_for(card, http, binding, streaming=True), binding)


async def blocking(client) -> None:
    convert = DataPart(data={"money": {"amount": 10, "currency": "USD"}, "to": "EUR"})
    events = [event async for event in client.send_message(message("py03-1", "convert", convert))]
    check(len(events) == 1 and isinstance(events[0], tuple), f"one task event, got {events}")
    task, _ = events[0]
    check(task.status.state == TaskState.completed, f"state {task.status.state}")
    quote = task.artifacts[0].parts[0].root.data
    check(quote["currency"] == "EUR" and abs(quote["amount"] - 9.26) < 1e-9, f"quote {quote}")
    print("send ok:", quote)

    events = [event async for event in client.send_message(message("py03-2", "is-supported", TextPart(text="chf")))]
    answer = events[0][0].artifacts[0].parts[0].root.text
    check(answer == "CHF is supported", f"text answer {answer!r}")

    fetched = await client.get_task(TaskQueryParams(id=task.id, history_length=1))
    check(fetched.id == task.id and len(fetched.history) == 1, f"get_task {fetched}")
    check(fetched.kind == "task" and fetched.status.state == TaskState.completed, f"get_task state {fetched.status}")
    print("get ok")


def report(message_id: str, pace_ms: int) -> Message:
    return message(message_id, "report", DataPart(data={"currencies": ["USD", "JPY", "GBP"], "pace_ms": pace_ms}))


async def streaming(client, binding: str) -> None:
    # Read the stream until the report's first chunk, then leave it.
    seen = []
    async with aclosing(client.send_message(report("py03-stream-1", 300))) as events:
        async for task, update in events:
            seen.append(update)
            if isinstance(update, TaskArtifactUpdateEvent):
                break
    check(seen[0] is None, f"the stream starts with the task, got {seen[0]!r}")
    task_id = task.id
    artifact_id = seen[-1].artifact.artifact_id
    print("stream ok: left after", [type(u).__name__ for u in seen])

    # Resubscribe: the rest of the task's events until it completes, the last one final.
    updates = []
    async for task, update in client.resubscribe(TaskIdParams(id=task_id)):
        updates.append(update)
    last = updates[-1]
    check(isinstance(last, TaskStatusUpdateEvent), f"last event is a status update: {last!r}")
    check(last.final and last.status.state == TaskState.completed, f"final event {last}")
    streamed = "".join(p.root.text for a in task.artifacts if a.artifact_id == artifact_id for p in a.parts)
    for code in ("USD", "JPY", "GBP"):
        check(f"## {code}" in streamed, f"section {code} in the report: {streamed!r}")
    stored = await client.get_task(TaskQueryParams(id=task_id))
    check(stored.status.state == TaskState.completed, f"stored state {stored.status.state}")
    stored_report = "".join(p.root.text for p in stored.artifacts[0].parts)
    check(stored_report.endswith(streamed[-200:]), "the stored artifact ends like the streamed one")
    print("resubscribe ok:", len(updates), "events")

    # A streaming method refused before any event: over JSON-RPC the client reads the typed
    # error (an SSE error event), not "Invalid SSE response"; over HTTP+JSON the 0.3 client
    # reads no error body from a stream, so an HTTP error is what it can report.
    try:
        async for _ in client.resubscribe(TaskIdParams(id="no-such-task")):
            pass
        check(False, "resubscribing to an unknown task is refused")
    except A2AClientJSONRPCError as error:
        check(binding == "JSONRPC", f"a JSON-RPC error over {binding}: {error!r}")
        check(error.error.code == -32001, f"task not found, got {error.error!r}")
        print("stream error ok:", error.error.code, error.error.message)
    except A2AClientHTTPError as error:
        check(binding == "HTTP+JSON", f"an HTTP error over {binding}: {error!r}")
        print("stream error ok:", error.status_code)

    # Cancel a streamed task: the stream ends with a final `canceled` status.
    states = []
    async with aclosing(client.send_message(report("py03-stream-2", 60_000))) as events:
        async for task, update in events:
            if isinstance(update, TaskStatusUpdateEvent):
                states.append((update.status.state, update.final))
                if len(states) == 1:
                    canceled = await client.cancel_task(TaskIdParams(id=task.id))
                    check(canceled.status.state == TaskState.canceled, f"cancel result {canceled.status.state}")
    check(states[-1] == (TaskState.canceled, True), f"stream ended with {states}")
    print("cancel ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
