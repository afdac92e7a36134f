"""Registers a push notification config with the official A2A Python SDK 1.x client.

Usage: python a2a_push.py BASE_URL BINDING RECEIVER_URL TOKEN
Starts a slow report on the currency agent (returnImmediately), registers RECEIVER_URL for it with
CreateTaskPushNotificationConfig (token and Bearer credentials), reads it back with Get and List
(credentials redacted), and prints the task id on its last line; the test then reads the
receiver's deliveries. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure (push, 1.x): {what}")


async def main(base_url: str, binding: str, receiver: str, token: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    check(card.capabilities.push_notifications, "card says pushNotifications")
    config = ClientConfig(streaming=False, supported_protocol_bindings=[binding])
    client = await create_client(card, client_config=config)
    request = json_format.ParseDict(
        {
            "message": {
                "messageId": f"push-{binding}",
                "role": "ROLE_USER",
                "parts": [{"data": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": 150}}],
                "metadata": {"skill": "report"},
            },
            "configuration": {"returnImmediately": True},
        },
        a2a_pb2.SendMessageRequest(),
    )
    events = [event async for event in client.send_message(request)]
    task = events[0].task
    check(not task.status.state == a2a_pb2.TASK_STATE_COMPLETED, "the report is still running")

    hook = a2a_pb2.TaskPushNotificationConfig(
        task_id=task.id,
        id="py-hook",
        url=receiver,
        token=token,
        authentication=a2a_pb2.AuthenticationInfo(scheme="Bearer", credentials="py-secret"),
    )
    created = await client.create_task_push_notification_config(hook)
    check(created.id == "py-hook" and created.url == receiver, f"created {created}")
    check(created.authentication.credentials == "********", f"credentials echoed: {created}")
    got = await client.get_task_push_notification_config(
        a2a_pb2.GetTaskPushNotificationConfigRequest(task_id=task.id, id="py-hook")
    )
    check(got.token == token and got.authentication.scheme == "Bearer", f"get {got}")
    check(got.authentication.credentials == "********", f"credentials echoed: {got}")
    listed = await client.list_task_push_notification_configs(
        a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    check([c.id for c in listed.configs] == ["py-hook"], f"list {listed}")
    # A second config, deleted again: Delete answers and the list shrinks.
    await client.create_task_push_notification_config(
        a2a_pb2.TaskPushNotificationConfig(task_id=task.id, id="gone", url=receiver)
    )
    await client.delete_task_push_notification_config(
        a2a_pb2.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="gone")
    )
    listed = await client.list_task_push_notification_configs(
        a2a_pb2.ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    check([c.id for c in listed.configs] == ["py-hook"], f"list after delete {listed}")
    await client.close()
    print("push configs ok over", binding)
    print(task.id)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
