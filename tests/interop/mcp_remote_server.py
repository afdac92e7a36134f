"""An MCP server written with the official Python MCP SDK (mcp 2.x's `MCPServer`, which was
FastMCP before 2.0): the remote server a host fronts in `remote_mcp.rs`.

Usage: python mcp_remote_server.py http    (binds a free port on 127.0.0.1, prints it, and serves
                                             streamable HTTP at /mcp)
       python mcp_remote_server.py stdio   (serves on stdin/stdout)
       python mcp_remote_server.py hostile (stdio, with only the tools of a misbehaving server:
                                             `pid`, `hang`, `garble`, `flood` and `crash`)
Tools: `add` (structured output), `count` (a progress notification per step), `ask_city` (asks
the caller with an elicitation), `wait` (until canceled; then writes `canceled` to the file it
was given), and `grow` (adds the tool `late` and the prompt `late_prompt` and says both lists
changed). Resources: `notes://readme`, and the template `notes://{name}`. Prompts: `summarize`.
"""

import os
import socket
import sys

import anyio
import uvicorn
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer(name="py-tools", title="Python Tools", instructions="Small tools for tests.", version="1.2.3")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
async def count(to: int, ctx: Context) -> str:
    """Counts to `to`, reporting each step."""
    for step in range(1, to + 1):
        await ctx.report_progress(step, to, f"step {step} of {to}")
        await anyio.sleep(0.02)
    return f"counted to {to}"


class City(BaseModel):
    city: str


@server.tool()
async def ask_city(ctx: Context) -> str:
    """Asks which city, and says it back."""
    answered = await ctx.elicit("Which city?", schema=City)
    if answered.action != "accept":
        return f"no city ({answered.action})"
    return f"You chose {answered.data.city}"


@server.tool()
async def wait(marker: str) -> str:
    """Waits until canceled, then writes `canceled` to the file `marker`."""
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w") as out:
            out.write("canceled")
        raise
    return "waited"


@server.resource("notes://readme", title="Read me", mime_type="text/markdown")
def readme() -> str:
    """The notes' read-me."""
    return "# Notes\nSmall notes for tests."


@server.resource("notes://{name}")
def note(name: str) -> str:
    """A note, by its name."""
    return f"note {name}"


@server.prompt(title="Summarize")
def summarize(text: str, style: str = "short") -> str:
    """Asks for a summary of `text`."""
    return f"Summarize in a {style} way: {text}"


def late(text: str) -> str:
    """A tool added while the server runs."""
    return f"late: {text}"


def late_prompt() -> str:
    """A prompt added while the server runs."""
    return "a late prompt"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `late` and the prompt `late_prompt`, and tells the client both lists
    changed."""
    server.add_tool(late)
    server.prompt(name="late_prompt")(late_prompt)
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_prompt_list_changed()
    return "grown"


async def serve_http() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is told: a connection made at once waits to be accepted.
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    await uvicorn.Server(config).serve(sockets=[sock])


hostile = MCPServer(name="hostile")


@hostile.tool()
def pid() -> int:
    """This process's id."""
    return os.getpid()


@hostile.tool()
async def hang() -> str:
    """Never answers."""
    await anyio.sleep(3600)
    return "late"


@hostile.tool()
def garble() -> str:
    """Writes a line that is not JSON-RPC where the answer should be, and never answers."""
    sys.stdout.write("this is not json\n")
    sys.stdout.flush()
    os.kill(os.getpid(), 19)  # SIGSTOP: stays alive, says nothing more
    return "unreachable"


@hostile.tool()
def flood() -> str:
    """Writes 100 MB without a line break where the answer should be."""
    os.set_blocking(1, True)
    chunk = b"x" * (1 << 20)
    for _ in range(100):
        os.write(1, chunk)
    os.kill(os.getpid(), 19)
    return "unreachable"


@hostile.tool()
def crash() -> str:
    """Exits at once, answering nothing."""
    os._exit(3)


if __name__ == "__main__":
    if sys.argv[1] == "http":
        anyio.run(serve_http)
    elif sys.argv[1] == "hostile":
        hostile.run("stdio")
    else:
        server.run("stdio")
