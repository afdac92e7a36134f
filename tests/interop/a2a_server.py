"""An agent served by the official Python a2a-sdk (1.x), for the Rust client's interop tests.

It binds 127.0.0.1 on a free port, prints the port on its first line of output, reads the base
URL its card should advertise from its first line of input (empty: its own address, which lets
a test put a proxy in front), and serves A2A 1.0 JSON-RPC at `/` and 1.0 HTTP+JSON at `/`
(`/message:send` …), with its card, listing both, at `/.well-known/agent-card.json`. Its one skill echoes the message's text as a working update, an
artifact and a completed status; the text `wait` keeps the task working until it is canceled,
and `drip` appends 12 chunks to one artifact, 30 ms apart.

Usage: a2a_server.py
"""

import asyncio
import socket
import sys

import uvicorn
from a2a.helpers.proto_helpers import get_message_text, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    TaskState,
)
from starlette.applications import Starlette


class Echo(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = get_message_text(context.message)
        await updater.start_work()
        if text == "drip":
            artifact_id = "drops"
            for i in range(12):
                await asyncio.sleep(0.03)
                await updater.add_artifact(
                    [new_text_part(f"c{i}")], artifact_id=artifact_id, name="drops", append=i > 0
                )
            await updater.complete()
            return
        if text == "wait":
            # Canceling cancels this coroutine; the handler then calls `cancel`.
            while True:
                await asyncio.sleep(0.05)
        await updater.add_artifact([new_text_part(f"echo: {text}")], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.cancel()


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is told: a client that connects before the server is up
    # waits in the backlog instead of being refused.
    sock.listen(128)
    port = sock.getsockname()[1]
    print(port, flush=True)
    public = sys.stdin.readline().strip() or f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="Python Echo",
        description="Echoes text, served by the official a2a-sdk.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=public, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=public, protocol_binding="HTTP+JSON", protocol_version="1.0"),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes text.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Echo(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore(),
    )
    routes = (
        create_agent_card_routes(card)
        + create_jsonrpc_routes(handler, "/")
        + create_rest_routes(handler)
    )
    app = Starlette(routes=routes)
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())
