"""Drives the scenario agent (examples/a2a-scenarios) with the official A2A Python SDK 1.x client
the way the conformance corpus (ACTS) does: each behaviour named by the first text part of the
message (`tck-task-failure …`, message ids carrying nothing), every request carrying the kit's
opaque bearer token; then, against a server started with --no-streaming, the reduced card.

Usage: python a2a_acts.py BASE_URL BINDING TOKEN [REDUCED_BASE_URL]
BINDING is JSONRPC, HTTP+JSON or GRPC. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys
import uuid

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, create_client
from a2a.types import a2a_pb2

# The scenario script's helpers (check, kind, send, config), beside this file.
from a2a_scenarios import check, config, kind, send

S = a2a_pb2


def request(text: str, task=None, return_immediately=False) -> a2a_pb2.SendMessageRequest:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": text}]}
    if task is not None:
        message["taskId"] = task.id
        message["contextId"] = task.context_id
    body = {"message": message}
    if return_immediately:
        body["configuration"] = {"returnImmediately": True}
    return json_format.ParseDict(body, S.SendMessageRequest())


async def task_of(client, text, state, task=None):
    answer = await send(client, request(text, task))
    check(kind(answer) == "task", f"{text}: a task, got {answer}")
    check(answer.task.status.state == state, f"{text}: state {answer.task.status.state}, wanted {state}")
    return answer.task


async def blocking(card, http, binding):
    client = await create_client(card, client_config=config(http, binding, streaming=False))
    await task_of(client, "tck-complete-task", S.TASK_STATE_COMPLETED)
    failed = await task_of(client, "tck-task-failure", S.TASK_STATE_FAILED)
    check("failed" in failed.status.message.parts[0].text, f"failure reason {failed.status}")
    await task_of(client, "tck-reject-task please", S.TASK_STATE_REJECTED)
    await task_of(client, "tck-input-required", S.TASK_STATE_INPUT_REQUIRED)
    await task_of(client, "tck-auth-required", S.TASK_STATE_AUTH_REQUIRED)
    unknown = await task_of(client, "tck-not-a-behaviour", S.TASK_STATE_FAILED)
    check("tck-not-a-behaviour" in unknown.status.message.parts[0].text, f"unknown {unknown.status}")

    # Multi-turn: asks until told `done`; the follow-ups name no behaviour.
    task = await task_of(client, "tck-multi-turn start", S.TASK_STATE_INPUT_REQUIRED)
    task = await task_of(client, "here is more input", S.TASK_STATE_INPUT_REQUIRED, task)
    task = await task_of(client, "and more", S.TASK_STATE_INPUT_REQUIRED, task)
    done = await task_of(client, "done", S.TASK_STATE_COMPLETED, task)
    check("3 turns" in done.artifacts[0].parts[0].text, f"multi-turn result {done.artifacts}")

    answer = await send(client, request("tck-message-response"))
    check(kind(answer) == "message", f"message-response: a message, got {answer}")

    # Held WORKING until canceled.
    answer = await send(client, request("tck-cancel", return_immediately=True))
    check(kind(answer) == "task", f"tck-cancel: a task, got {answer}")
    canceled = await client.cancel_task(S.CancelTaskRequest(id=answer.task.id))
    check(canceled.status.state == S.TASK_STATE_CANCELED, f"canceled {canceled.status}")

    # Long running: WORKING when polled at once, then COMPLETED with an artifact.
    answer = await send(client, request("tck-long-running", return_immediately=True))
    task_id = answer.task.id
    seen = await client.get_task(S.GetTaskRequest(id=task_id))
    check(seen.status.state in (S.TASK_STATE_SUBMITTED, S.TASK_STATE_WORKING), f"long-running at once {seen.status}")
    for _ in range(100):
        seen = await client.get_task(S.GetTaskRequest(id=task_id))
        if seen.status.state == S.TASK_STATE_COMPLETED:
            break
        await asyncio.sleep(0.1)
    check(seen.status.state == S.TASK_STATE_COMPLETED and seen.artifacts, f"long-running ends {seen}")

    for text, parts in [("tck-artifact-text", "text"), ("tck-artifact-data", "data"), ("tck-artifact-file", "raw"), ("tck-artifact-file-url", "url")]:
        task = await task_of(client, text, S.TASK_STATE_COMPLETED)
        check(task.artifacts[0].parts[0].WhichOneof("content") == parts, f"{text}: {task.artifacts}")
    print("acts blocking behaviours ok:", binding)


async def streaming(card, http, binding):
    client = await create_client(card, client_config=config(http, binding, streaming=True))
    events = [e async for e in client.send_message(request("tck-stream-basic"))]
    kinds = [kind(e) for e in events]
    check(kinds[0] == "task" and "artifact_update" in kinds, f"stream-basic {kinds}")
    check(events[-1].status_update.status.state == S.TASK_STATE_COMPLETED, f"stream-basic ends {events[-1]}")
    events = [e async for e in client.send_message(request("tck-stream-chunked"))]
    chunks = [e.artifact_update for e in events if kind(e) == "artifact_update"]
    check(len(chunks) >= 2 and chunks[-1].last_chunk and chunks[-1].append, f"chunks {chunks}")
    print("acts streaming behaviours ok:", binding)


async def reduced(base_url, http, binding):
    card = await A2ACardResolver(http, base_url).get_agent_card()
    check(not card.capabilities.streaming, f"reduced card streams: {card.capabilities}")
    client = await create_client(card, client_config=config(http, binding, streaming=False))
    await task_of(client, "tck-complete-task", S.TASK_STATE_COMPLETED)
    # The official client reads the card and does not try to stream...
    try:
        async for _ in client.subscribe(S.SubscribeToTaskRequest(id=str(uuid.uuid4()))):
            pass
        check(False, "the client streamed from a card without streaming")
    except NotImplementedError as error:
        check("support" in str(error), f"subscribe on a reduced card: {error!r}")
    # ...and a client that tries anyway is refused as an unsupported operation.
    raw = await http.post(base_url, headers={"A2A-Version": "1.0"}, json={
        "jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage",
        "params": json_format.MessageToDict(request("tck-stream-basic"))})
    check(raw.json()["error"]["code"] == -32004, f"streaming on a reduced card: {raw.text}")
    print("acts reduced card ok:", binding)


async def main(base_url: str, binding: str, token: str, reduced_url: str | None) -> None:
    async with httpx.AsyncClient(timeout=30) as bare:
        refused = await bare.post(base_url, json={"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}},
                                  headers={"A2A-Version": "1.0"})
        check(refused.status_code == 401, f"no token: {refused.status_code}")
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=30, headers=headers) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        check("testBearer" in card.security_schemes, f"the card declares the kit's scheme: {card.security_schemes}")
        await asyncio.gather(blocking(card, http, binding), streaming(card, http, binding))
        if reduced_url:
            await reduced(reduced_url, http, binding)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
