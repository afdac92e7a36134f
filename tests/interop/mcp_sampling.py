"""Answers a skill's sampling, roots and form requests with the official MCP Python SDK (mcp 2.x)
client: on a 2025-11-25 session (server-to-client requests) and on protocol 2026-07-28
(input-required results the client answers and retries).

Usage: python mcp_sampling.py MCP_URL
Calls `poem` (which asks the client's model), `workspace` (which lists the client's roots) and
`dedication` (which asks for a form, a completion and the roots at once), and gets the
`poem_for` prompt (which asks for a form and a completion first).
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

from mcp import Client, types


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def session(url: str, mode: str) -> None:
    asked = []
    forms = []

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

    async def elicit(context, params):
        forms.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(
        url,
        mode=mode,
        sampling_callback=sample,
        list_roots_callback=roots,
        elicitation_callback=elicit,
    ) as client:
        poem = await client.call_tool("poem", {"subject": "rain"})
        check(not poem.is_error and poem.content[0].text == "Soft rain on the roof", f"{mode}: poem {poem}")
        check(asked and asked[0].messages[0].content.text == "A haiku about rain", f"{mode}: request {asked}")
        check(asked[0].max_tokens == 60, f"{mode}: max tokens {asked[0].max_tokens}")
        listed = await client.call_tool("workspace", {})
        check(not listed.is_error and listed.content[0].text == "Project: file:///work/project", f"{mode}: roots {listed}")

        dedicated = await client.call_tool("dedication", {})
        text = "For Ada: Soft rain on the roof (1 roots)"
        check(not dedicated.is_error and dedicated.content[0].text == text, f"{mode}: dedication {dedicated}")
        check(forms and forms[-1].message == "Who is the poem for?", f"{mode}: form {forms}")

        prompt = await client.get_prompt("poem_for", {})
        text = "Write a poem for Ada that opens with: Soft rain on the roof"
        check(prompt.messages[0].content.text == text, f"{mode}: prompt {prompt}")
    print(f"{mode}: sampling, roots and sets of questions ok")


async def main(url: str) -> None:
    await session(url, "legacy")
    await session(url, "2026-07-28")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
