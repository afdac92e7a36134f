"""Answers a skill's sampling and roots requests with the official MCP Python SDK (mcp 2.x)
client, on a 2025-11-25 session.

Usage: python mcp_sampling.py MCP_URL
Calls `poem` (which asks the client's model) and `workspace` (which lists the client's roots).
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

from mcp import Client, types


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def main(url: str) -> None:
    asked = []

    async def sample(context, params: types.CreateMessageRequestParams):
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Soft rain on the roof"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="Project")])

    async with Client(url, mode="legacy", sampling_callback=sample, list_roots_callback=roots) as client:
        poem = await client.call_tool("poem", {"subject": "rain"})
        check(not poem.is_error and poem.content[0].text == "Soft rain on the roof", f"poem {poem}")
        check(asked and asked[0].messages[0].content.text == "A haiku about rain", f"request {asked}")
        check(asked[0].max_tokens == 60, f"max tokens {asked[0].max_tokens}")
        listed = await client.call_tool("workspace", {})
        check(not listed.is_error and listed.content[0].text == "Project: file:///work/project", f"roots {listed}")
    print("sampling and roots ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
