"""Drives the scenario agent (examples/a2a-scenarios) with the official A2A Python SDK 0.3.x
client through every messageId prefix A2A test kits use.

Usage: python a2a_v03_scenarios.py BASE_URL BINDING
BINDING is JSONRPC or HTTP+JSON. Runs in .venv03 (scripts/test creates it). Exits non-zero (with
the reason) on any mismatch.
"""

import asyncio
import sys
import uuid
from contextlib import aclosing

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
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
        raise SystemExit(f"scenario failure (0.3): {what}")


def message(prefix: str, text: str = "hello", task=None) -> Message:
    return Message(
        message_id=f"{prefix}-{uuid.uuid4()}",
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


def client_for(card, http, binding: str, streaming: bool):
    config = ClientConfig(streaming=streaming, httpx_client=http, supported_transports=[binding])
    return ClientFactory(config).create(card)


async def answers(client, msg):
    return [event async for event in client.send_message(msg)]


async def task_of(client, prefix, state, text="hello"):
    events = await answers(client, message(prefix, text))
    check(len(events) == 1 and isinstance(events[0], tuple), f"{prefix}: one task, got {events}")
    task = events[0][0]
    check(task.status.state == state, f"{prefix}: state {task.status.state}, wanted {state}")
    return task


async def blocking(client):
    task = await task_of(client, "tck-complete-task", TaskState.completed)
    check(task.artifacts[0].parts[0].root.text == "Hello from TCK", f"complete-task {task.artifacts}")

    events = await answers(client, message("tck-message-response"))
    check(len(events) == 1 and isinstance(events[0], Message), f"message-response: a message, got {events}")
    check(events[0].role == Role.agent and events[0].parts[0].root.text == "Direct message response", f"{events[0]}")

    await task_of(client, "tck-reject-task", TaskState.rejected)

    task = await task_of(client, "tck-artifact-text", TaskState.completed)
    check(task.artifacts[0].parts[0].root.text == "Generated text content", f"text artifact {task.artifacts}")
    task = await task_of(client, "tck-artifact-file-url", TaskState.completed)
    file = task.artifacts[0].parts[0].root.file
    check(file.uri == "https://example.com/output.txt" and file.name == "output.txt", f"url artifact {file}")
    task = await task_of(client, "tck-artifact-file", TaskState.completed)
    file = task.artifacts[0].parts[0].root.file
    check(file.name == "output.txt" and file.mime_type == "text/plain", f"file artifact {file}")
    task = await task_of(client, "tck-artifact-data", TaskState.completed)
    check(task.artifacts[0].parts[0].root.data == {"key": "value", "count": 42}, f"data {task.artifacts}")

    task = await task_of(client, "tck-input-required", TaskState.input_required)
    events = await answers(client, message("tck-input-required-follow-up", "more input", task))
    check(events[0][0].id == task.id and events[0][0].status.state == TaskState.input_required, f"follow-up {events}")
    events = await answers(client, message("kit-answer", "the last input", task))
    check(events[0][0].id == task.id and events[0][0].status.state == TaskState.completed, f"last follow-up {events}")
    task = await task_of(client, "tck-input-required", TaskState.input_required)
    canceled = await client.cancel_task(TaskIdParams(id=task.id))
    check(canceled.status.state == TaskState.canceled, f"cancel while waiting {canceled.status}")

    repeated = message("some-other-id")
    first = await answers(client, repeated)
    second = await answers(client, repeated)
    check(first[0][0].id != second[0][0].id, "a repeated messageId starts a task of its own")

    # A message naming no scenario works for about 3 s, then asks for input (as the 0.3 kits'
    # reference agent does): a blocking send returns it waiting; each follow-up parks it again
    # (the 0.3 kit's test_task_history_length sends several), the question naming the follow-up;
    # the history holds the whole exchange.
    waiting = first[0][0]
    check(waiting.status.state == TaskState.input_required, f"unknown prefix: {waiting.status}")
    for turn in (1, 2):
        follow_up = message("kit-follow-up", f"more {turn}", waiting)
        parked = (await answers(client, follow_up))[0][0]
        check(parked.status.state == TaskState.input_required, f"after follow-up {turn}: {parked.status}")
        text = parked.status.message.parts[0].root.text
        expected = f"Received follow-up: more {turn} (message {follow_up.message_id})"
        check(text.startswith(expected), f"follow-up {turn} answer {text!r}")
    read = await client.get_task(TaskQueryParams(id=waiting.id))
    roles = [m.role for m in read.history]
    check(roles[0] == Role.user and Role.agent in roles and roles.count(Role.user) >= 3, f"history {roles}")
    canceled = await client.cancel_task(TaskIdParams(id=waiting.id))
    check(canceled.status.state == TaskState.canceled, f"cancel after the follow-ups {canceled.status}")
    print("blocking scenarios ok")


async def unknown_prefix_can_be_canceled_while_it_works(client):
    events = await answers(client, message("kit-unknown"))
    task = events[0][0]
    check(task.status.state in (TaskState.submitted, TaskState.working), f"non-blocking: {task.status}")
    canceled = await client.cancel_task(TaskIdParams(id=task.id))
    check(canceled.status.state == TaskState.canceled, f"cancel while working {canceled.status}")
    print("unknown prefix canceled while working ok")


async def streaming(client):
    for prefix in ["tck-stream-001", "tck-stream-003", "tck-stream-ordering-001", "tck-stream-artifact-text", "tck-stream-artifact-file"]:
        updates = [update async for _, update in client.send_message(message(prefix))]
        check(updates[0] is None, f"{prefix}: starts with the task: {updates}")
        kinds = [type(u).__name__ for u in updates[1:]]
        artifact_at = kinds.index("TaskArtifactUpdateEvent")
        check(kinds[0] == "TaskStatusUpdateEvent" and updates[1].status.state == TaskState.working, f"{prefix}: WORKING first: {kinds}")
        last = updates[-1]
        check(isinstance(last, TaskStatusUpdateEvent) and last.final and last.status.state == TaskState.completed, f"{prefix}: ends completed: {last}")
        check(artifact_at < len(kinds) - 1, f"{prefix}: the artifact before the end: {kinds}")

    updates = [update async for _, update in client.send_message(message("tck-stream-002"))]
    check(updates[-1].status.state == TaskState.completed, f"stream-002 {updates}")

    updates = [update async for _, update in client.send_message(message("tck-stream-artifact-chunked"))]
    chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
    check([c.artifact.parts[0].root.text for c in chunks] == ["chunk-1 ", "chunk-2"], f"chunks {chunks}")
    check(not chunks[0].append and chunks[1].append and chunks[1].last_chunk, f"chunk flags {chunks}")

    events = [event async for event in client.send_message(message("tck-message-response"))]
    check(len(events) == 1 and isinstance(events[0], Message), f"a streamed direct reply is one message: {events}")

    async with aclosing(client.send_message(message("test-resubscribe-message-id"))) as events:
        async for task, update in events:
            if isinstance(update, TaskStatusUpdateEvent) and update.status.state == TaskState.working:
                break
    updates = [update async for _, update in client.resubscribe(TaskIdParams(id=task.id))]
    check(updates[-1].final and updates[-1].status.state == TaskState.completed, f"resubscribed end {updates[-1]}")
    print("streaming scenarios ok")


async def main(base_url: str, binding: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        check(card.name == "A2A Scenarios", f"card name {card.name!r}")
        check(card.capabilities.streaming and card.capabilities.push_notifications, f"capabilities {card.capabilities}")
        polling = ClientFactory(
            ClientConfig(streaming=False, polling=True, httpx_client=http, supported_transports=[binding])
        ).create(card)
        await asyncio.gather(
            blocking(client_for(card, http, binding, streaming=False)),
            streaming(client_for(card, http, binding, streaming=True)),
            unknown_prefix_can_be_canceled_while_it_works(polling),
        )
        print("scenarios ok (0.3):", binding)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
