"""Completes the booking agent's multi-turn skills with the official A2A Python SDK (a2a-sdk 1.x).

Usage: python a2a_ask.py BASE_URL
A blocking client books a table: the task asks for the day (an unreadable answer is asked again),
then for confirmation. A streaming client does the same over SSE, each stream ending at the next
question. Then a cancellation waits in auth-required until the sign-in link is opened.
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2

INPUT_REQUIRED = a2a_pb2.TASK_STATE_INPUT_REQUIRED


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


def request(message: dict):
    return json_format.ParseDict({"message": message}, a2a_pb2.SendMessageRequest())


def start(message_id: str, skill: str, data: dict):
    return request({"messageId": message_id, "role": "ROLE_USER", "parts": [{"data": data}], "metadata": {"skill": skill}})


def reply(message_id: str, task, text: str):
    return request(
        {"messageId": message_id, "role": "ROLE_USER", "taskId": task.id, "contextId": task.context_id, "parts": [{"text": text}]}
    )


def question(status) -> str:
    return status.message.parts[0].text


async def blocking(card) -> str:
    client = await create_client(card, client_config=ClientConfig(streaming=False))

    async def send(req):
        events = [event async for event in client.send_message(req)]
        check(len(events) == 1 and events[0].HasField("task"), f"one task, got {events}")
        return events[0].task

    task = await send(start("ask-1", "book_table", {"restaurant": "Luigi's", "guests": 4}))
    check(task.status.state == INPUT_REQUIRED, f"asks for the day: {task.status}")
    check(question(task.status) == "Which day should I book? (YYYY-MM-DD)", f"question {question(task.status)!r}")
    schema = json_format.MessageToDict(task.status.message.parts[1].data)
    check(task.status.message.parts[1].media_type == "application/schema+json", "schema part media type")
    check(schema.get("format") == "date", f"answer schema {schema}")

    task = await send(reply("ask-2", task, "next tuesday"))
    check(task.status.state == INPUT_REQUIRED, f"asked again: {task.status}")
    check(question(task.status).startswith("Could not use that answer"), f"re-ask {question(task.status)!r}")

    task = await send(reply("ask-3", task, "2999-05-06"))
    check(question(task.status) == "Book a table for 4 at Luigi's on 2999-05-06? (yes/no)", f"confirm {question(task.status)!r}")

    task = await send(reply("ask-4", task, "yes"))
    check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"completed: {task.status}")
    booked = json_format.MessageToDict(task.artifacts[0].parts[0].data)
    check(booked["confirmed"] and booked["date"] == "2999-05-06", f"reservation {booked}")
    print("blocking ok:", booked["reference"])
    await client.close()
    return booked["reference"]


async def streaming(card) -> None:
    client = await create_client(card, client_config=ClientConfig(streaming=True))

    async def rounds(req):
        events = [event async for event in client.send_message(req)]
        check(events[0].WhichOneof("payload") == "task", f"first event is the task: {events[0]}")
        return events[0].task, events[-1]

    task, last = await rounds(start("stream-1", "book_table", {"restaurant": "Chez Ada", "guests": 2}))
    check(last.status_update.status.state == INPUT_REQUIRED, f"stream ends at the question: {last}")
    _, last = await rounds(reply("stream-2", task, "2999-07-08"))
    check(question(last.status_update.status).startswith("Book a table for 2"), f"second question {last}")
    _, last = await rounds(reply("stream-3", task, "yes"))
    check(last.status_update.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"stream ends completed: {last}")
    stored = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id))
    booked = json_format.MessageToDict(stored.artifacts[0].parts[0].data)
    check(booked["restaurant"] == "Chez Ada" and booked["confirmed"], f"reservation {booked}")
    print("streaming ok:", booked["reference"])
    await client.close()


async def sign_in(card, base_url: str, reference: str) -> None:
    client = await create_client(card, client_config=ClientConfig(streaming=False))
    events = [event async for event in client.send_message(start("auth-1", "cancel_booking", {"reference": reference}))]
    task = events[0].task
    check(task.status.state == a2a_pb2.TASK_STATE_AUTH_REQUIRED, f"waits for sign-in: {task.status}")
    check(f"/signin/{task.id}" in question(task.status), f"explains how to sign in: {question(task.status)!r}")

    async with httpx.AsyncClient(timeout=30) as http:
        opened = await http.get(f"{base_url}signin/{task.id}")
    check(opened.status_code == 200, f"sign-in page {opened.status_code} {opened.text}")
    for _ in range(200):
        task = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id))
        if task.status.state == a2a_pb2.TASK_STATE_COMPLETED:
            break
        await asyncio.sleep(0.05)
    check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"completed after sign-in: {task.status}")
    check(task.artifacts[0].parts[0].text == f"{reference} cancelled for demo.", f"result {task.artifacts[0]}")
    print("auth ok:", task.artifacts[0].parts[0].text)
    await client.close()


async def main(base_url: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    check(card.name == "Booking Agent", f"card name {card.name!r}")
    reference = await blocking(card)
    await streaming(card)
    await sign_in(card, base_url, reference)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
