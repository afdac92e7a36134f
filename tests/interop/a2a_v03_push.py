"""Registers a push notification config with the official A2A Python SDK 0.3.x client.

Usage: python a2a_v03_push.py BASE_URL BINDING RECEIVER_URL TOKEN
Starts a slow report on the currency agent (non-blocking), registers RECEIVER_URL for it with
set_task_callback (token and Bearer credentials), reads it back with get_task_callback
(credentials redacted), and prints the task id on its last line; the test then reads the
receiver's deliveries. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    DataPart,
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    Role,
    Task,
    TaskPushNotificationConfig,
)


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure (push, 0.3): {what}")


async def main(base_url: str, binding: str, receiver: str, token: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        check(card.capabilities.push_notifications, "card says pushNotifications")
        config = ClientConfig(
            streaming=False, polling=True, httpx_client=http, supported_transports=[binding]
        )
        client = ClientFactory(config).create(card)
        report = Message(
            message_id=f"push03-{binding}",
            role=Role.user,
            parts=[Part(root=DataPart(data={"currencies": ["USD", "JPY", "GBP"], "pace_ms": 150}))],
            metadata={"skill": "report"},
        )
        task = None
        async for event in client.send_message(report):
            task = event[0] if isinstance(event, tuple) else event
        check(isinstance(task, Task), f"a task, got {task!r}")

        hook = TaskPushNotificationConfig(
            task_id=task.id,
            push_notification_config=PushNotificationConfig(
                id="py03-hook",
                url=receiver,
                token=token,
                authentication=PushNotificationAuthenticationInfo(
                    schemes=["Bearer"], credentials="py-secret"
                ),
            ),
        )
        created = await client.set_task_callback(hook)
        check(created.push_notification_config.id == "py03-hook", f"created {created}")
        check(
            created.push_notification_config.authentication.credentials == "********",
            f"credentials echoed: {created}",
        )
        got = await client.get_task_callback(
            GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="py03-hook")
        )
        check(got.push_notification_config.url == receiver, f"get {got}")
        check(got.push_notification_config.token == token, f"get token {got}")
        check(
            got.push_notification_config.authentication.credentials == "********",
            f"credentials echoed: {got}",
        )
        print("push configs ok over", binding)
        print(task.id)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
