"""An agent served by the official Python a2a-sdk 0.3.x, for the Rust client's interop tests.

It behaves as `a2a_server.py` (the 1.x agent) does: it binds 127.0.0.1 on a free port, prints the
port, reads the base URL its card should advertise from its first line of input (empty: its own
address), and echoes text (`wait` works until canceled, `drip` appends 12 chunks 30 ms apart). It
serves A2A 0.3 JSON-RPC at `/` and 0.3 HTTP+JSON under `/rest` (`/rest/v1/message:send` …); its
0.3 card, at `/.well-known/agent-card.json`, prefers JSON-RPC and lists both.

Usage: a2a_server_v03.py
"""

import asyncio
import socket
import sys

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TextPart,
)
from a2a.utils import get_message_text, new_task


def text_part(text: str) -> Part:
    return Part(root=TextPart(text=text))


class Echo(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = get_message_text(context.message)
        await updater.start_work()
        if text == "drip":
            for i in range(12):
                await asyncio.sleep(0.03)
                await updater.add_artifact(
                    [text_part(f"c{i}")], artifact_id="drops", name="drops", append=i > 0
                )
            await updater.complete()
            return
        if text == "wait":
            # Canceling cancels this coroutine; the handler then calls `cancel`.
            while True:
                await asyncio.sleep(0.05)
        await updater.add_artifact([text_part(f"echo: {text}")], name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.cancel()


def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    print(port, flush=True)
    public = sys.stdin.readline().strip() or f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="Python Echo 0.3",
        description="Echoes text, served by the official a2a-sdk 0.3.",
        url=public,
        version="0.3.0",
        protocol_version="0.3.0",
        preferred_transport="JSONRPC",
        additional_interfaces=[
            AgentInterface(url=public, transport="JSONRPC"),
            AgentInterface(url=f"{public.rstrip('/')}/rest", transport="HTTP+JSON"),
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes text.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Echo(),
        task_store=InMemoryTaskStore(),
        push_config_store=InMemoryPushNotificationConfigStore(),
    )
    app = A2ARESTFastAPIApplication(agent_card=card, http_handler=handler).build(rpc_url="/rest")
    A2AStarletteApplication(agent_card=card, http_handler=handler).add_routes_to_app(
        app, rpc_url="/"
    )
    config = uvicorn.Config(app, log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())
