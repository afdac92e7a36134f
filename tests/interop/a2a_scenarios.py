"""Drives the scenario agent (examples/a2a-scenarios) with the official A2A Python SDK 1.x client
through every messageId prefix A2A test kits use.

Usage: python a2a_scenarios.py BASE_URL BINDING
BINDING is JSONRPC, HTTP+JSON or GRPC. Exits non-zero (with the reason) on any mismatch.
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

S = a2a_pb2


def check(condition, what):
    if not condition:
        raise SystemExit(f"scenario failure: {what}")


def request(prefix: str, text: str = "hello", task=None) -> a2a_pb2.SendMessageRequest:
    message = {"messageId": f"{prefix}-{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{"text": text}]}
    if task is not None:
        message["taskId"] = task.id
        message["contextId"] = task.context_id
    return json_format.ParseDict({"message": message}, S.SendMessageRequest())


def kind(event) -> str:
    return event.WhichOneof("payload")


async def send(client, req):
    events = [event async for event in client.send_message(req)]
    check(len(events) == 1, f"one answer, got {events}")
    return events[0]


async def task_of(client, prefix, state, text="hello"):
    answer = await send(client, request(prefix, text))
    check(kind(answer) == "task", f"{prefix}: a task, got {answer}")
    check(answer.task.status.state == state, f"{prefix}: state {answer.task.status.state}, wanted {state}")
    return answer.task


class _Credentials:
    """Adds `pairs` (the HTTP client's Authorization header) to every gRPC call's metadata, as
    the JSON bindings send it on every request."""

    def __init__(self, pairs):
        self.pairs = pairs

    def _with(self, details):
        metadata = grpc.aio.Metadata(*(list(details.metadata or ()) + self.pairs))
        return details._replace(metadata=metadata)


# grpcio files an interceptor under one kind only, so each kind has its own class.
class UnaryCredentials(_Credentials, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):
        return await continuation(self._with(details), request)


class StreamCredentials(_Credentials, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):
        return await continuation(self._with(details), request)


def config(http, binding, streaming):
    pairs = [("authorization", http.headers["authorization"])] if "authorization" in http.headers else []

    def channel(url):
        return grpc.aio.insecure_channel(url, interceptors=[UnaryCredentials(pairs), StreamCredentials(pairs)])

    return ClientConfig(
        streaming=streaming,
        httpx_client=http,
        supported_protocol_bindings=[binding],
        grpc_channel_factory=channel,
    )


async def blocking(card, http, binding):
    client = await create_client(card, client_config=config(http, binding, streaming=False))

    task = await task_of(client, "tck-complete-task", S.TASK_STATE_COMPLETED)
    check(task.artifacts[0].parts[0].text == "Hello from TCK", f"complete-task artifact {task.artifacts}")

    answer = await send(client, request("tck-message-response"))
    check(kind(answer) == "message", f"message-response: a message, got {answer}")
    check(answer.message.role == S.ROLE_AGENT, f"message role {answer.message.role}")
    check(answer.message.parts[0].text == "Direct message response", f"message {answer.message}")
    check(not answer.message.task_id, "a direct reply belongs to no task")

    task = await task_of(client, "tck-reject-task", S.TASK_STATE_REJECTED)
    check("rejected" in task.status.message.parts[0].text, f"reject reason {task.status}")

    task = await task_of(client, "tck-artifact-text", S.TASK_STATE_COMPLETED)
    check(task.artifacts[0].parts[0].text == "Generated text content", f"text artifact {task.artifacts}")
    task = await task_of(client, "tck-artifact-file-url", S.TASK_STATE_COMPLETED)
    part = task.artifacts[0].parts[0]
    check(part.url == "https://example.com/output.txt" and part.filename == "output.txt", f"url artifact {part}")
    task = await task_of(client, "tck-artifact-file", S.TASK_STATE_COMPLETED)
    part = task.artifacts[0].parts[0]
    check(part.raw == b"Generated file content", f"file bytes {part.raw!r}")
    check(part.filename == "output.txt" and part.media_type == "text/plain", f"file part {part}")
    task = await task_of(client, "tck-artifact-data", S.TASK_STATE_COMPLETED)
    data = json_format.MessageToDict(task.artifacts[0].parts[0].data)
    check(data == {"key": "value", "count": 42}, f"data artifact {data}")

    # Input required: follow-ups carrying the scenario's prefix are asked again (the TCK's
    # CORE-HIST-005/006 send two and read the history between), any other completes the task.
    task = await task_of(client, "tck-input-required", S.TASK_STATE_INPUT_REQUIRED)
    for turn in (1, 2):
        answer = await send(client, request("tck-input-required-follow-up", f"more input {turn}", task))
        check(kind(answer) == "task" and answer.task.id == task.id, f"follow-up answer {answer}")
        state = answer.task.status.state
        check(state == S.TASK_STATE_INPUT_REQUIRED, f"after follow-up {turn}: {answer.task.status}")
    read = await client.get_task(S.GetTaskRequest(id=task.id))
    users = [m for m in read.history if m.role == S.ROLE_USER]
    check(len(users) == 3, f"history after two follow-ups: {[m.message_id for m in read.history]}")
    answer = await send(client, request("kit-answer", "the last input", task))
    check(answer.task.status.state == S.TASK_STATE_COMPLETED, f"after the last follow-up {answer.task.status}")
    # And one canceled while it waits.
    task = await task_of(client, "tck-input-required", S.TASK_STATE_INPUT_REQUIRED)
    canceled = await client.cancel_task(S.CancelTaskRequest(id=task.id))
    check(canceled.status.state == S.TASK_STATE_CANCELED, f"cancel while waiting {canceled.status}")

    # Anything else completes; a repeated messageId is a new request, not an error.
    repeated = request("some-other-id")
    first = await send(client, repeated)
    second = await send(client, repeated)
    for answer in (first, second):
        check(answer.task.status.state == S.TASK_STATE_COMPLETED, f"default scenario {answer}")
    check(first.task.id != second.task.id, "a repeated messageId starts a task of its own")
    print("blocking scenarios ok:", binding)


async def stream(client, req):
    return [event async for event in client.send_message(req)]


def states(events):
    return [e.status_update.status.state for e in events if kind(e) == "status_update"]


async def streaming(card, http, binding):
    client = await create_client(card, client_config=config(http, binding, streaming=True))

    for prefix in ["tck-stream-001", "tck-stream-003", "tck-stream-ordering-001", "tck-stream-artifact-text", "tck-stream-artifact-file"]:
        events = await stream(client, request(prefix))
        kinds = [kind(e) for e in events]
        check(kinds[0] == "task", f"{prefix}: starts with the task: {kinds}")
        artifact_at = kinds.index("artifact_update")
        working = [i for i, e in enumerate(events) if kind(e) == "status_update" and e.status_update.status.state == S.TASK_STATE_WORKING]
        check(working and working[0] < artifact_at, f"{prefix}: WORKING before the artifact: {kinds}")
        check(states(events)[-1] == S.TASK_STATE_COMPLETED and kinds[-1] == "status_update", f"{prefix}: ends COMPLETED: {kinds}")
        part = events[artifact_at].artifact_update.artifact.parts[0]
        if prefix.endswith("file"):
            check(part.filename == "output.txt" and part.raw == b"Generated file content", f"{prefix}: file {part}")
        else:
            check(part.text == "Streamed text content", f"{prefix}: text {part}")

    events = await stream(client, request("tck-stream-002"))
    check(states(events)[-1] == S.TASK_STATE_COMPLETED, f"stream-002 ends COMPLETED: {events}")

    events = await stream(client, request("tck-stream-artifact-chunked"))
    chunks = [e.artifact_update for e in events if kind(e) == "artifact_update"]
    check([c.artifact.parts[0].text for c in chunks] == ["chunk-1 ", "chunk-2"], f"chunks {chunks}")
    check(not chunks[0].append and chunks[1].append and chunks[1].last_chunk, f"chunk flags {chunks}")
    check(chunks[0].artifact.artifact_id == chunks[1].artifact.artifact_id, "one artifact id")

    events = await stream(client, request("tck-message-response"))
    check([kind(e) for e in events] == ["message"], f"a streamed direct reply is one message: {events}")
    check(events[0].message.parts[0].text == "Direct message response", f"streamed message {events[0]}")

    # A long task: leave its stream once it shows WORKING, resubscribe, see it complete.
    async with aclosing(client.send_message(request("test-resubscribe-message-id"))) as events:
        async for event in events:
            if kind(event) == "task":
                task_id = event.task.id
            if kind(event) == "status_update" and event.status_update.status.state == S.TASK_STATE_WORKING:
                break
    rest = [event async for event in client.subscribe(S.SubscribeToTaskRequest(id=task_id))]
    check(kind(rest[0]) == "task" and rest[0].task.status.state == S.TASK_STATE_WORKING, f"resubscribed snapshot {rest[0]}")
    check(states(rest)[-1] == S.TASK_STATE_COMPLETED, f"resubscribed stream ends COMPLETED: {rest}")
    print("streaming scenarios ok:", binding)


async def main(base_url: str, binding: str) -> None:
    # Longer than the long scenario's silence (the default 5 s would end its stream first).
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        await scenarios(card, http, binding)


async def scenarios(card, http, binding) -> None:
    check(card.name == "A2A Scenarios", f"card name {card.name!r}")
    check(card.capabilities.streaming and card.capabilities.push_notifications, f"capabilities {card.capabilities}")
    check(not card.capabilities.extended_agent_card, "no extended card without a security scheme")
    bindings = {(i.protocol_binding, i.protocol_version) for i in card.supported_interfaces}
    expected = {("JSONRPC", "1.0"), ("HTTP+JSON", "1.0"), ("GRPC", "1.0"), ("JSONRPC", "0.3"), ("HTTP+JSON", "0.3")}
    check(bindings == expected, f"interfaces {bindings}")
    await asyncio.gather(blocking(card, http, binding), streaming(card, http, binding))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
