"""Drives a served agent with the official A2A Python SDK (a2a-sdk 1.x) client.

Usage: python a2a_client.py BASE_URL
Fetches the agent card, sends a structured message and a text message, reads the task back and
lists tasks. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def main(base_url: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    check(card.name == "Currency Agent", f"card name {card.name!r}")
    check([s.id for s in card.skills] == ["convert", "is-supported", "rates"], f"skills {[s.id for s in card.skills]}")
    check(card.supported_interfaces[0].protocol_version == "1.0", "interface version")
    print("card ok:", card.name, card.version)

    client = await create_client(card, client_config=ClientConfig(streaming=False))
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
    answer = events[0].task.artifacts[0].parts[0].text
    check(answer == "CHF is supported", f"text answer {answer!r}")

    fetched = await client.get_task(a2a_pb2.GetTaskRequest(id=task.id, history_length=1))
    check(fetched.id == task.id and len(fetched.history) == 1, f"get_task {fetched}")
    listed = await client.list_tasks(a2a_pb2.ListTasksRequest(page_size=10))
    check(len(listed.tasks) == 2 and listed.total_size == 2, f"list_tasks {listed}")
    print("get/list ok")
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
