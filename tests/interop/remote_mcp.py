"""Drives an MCP server written with the official Python MCP SDK (`mcp_remote_server.py`)
through a host that fronts it as the remote `ID`, with the official MCP client (mcp 2.x).

Usage: python remote_mcp.py HOST_BASE_URL ID MARKER_FILE
On HOST_BASE_URL/ID/mcp: the remote's tools are listed; `add` answers structured content;
`count`'s progress reaches the client; `ask_city`'s elicitation is answered by this client; a
canceled `wait` is canceled at the remote (it writes MARKER_FILE); `grow` adds `late`, which the
host lists once the remote says its list changed; its resources (one, and a template) read and
its prompt got through the host, and the prompt `grow` adds listed. On the shared
HOST_BASE_URL/mcp, `ID_add`, the resource, and the prompt as `ID_summarize`.
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import os
import sys

import anyio

from mcp import Client, types
from mcp.client.subscriptions import ToolsListChanged


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def answer_city(context, params):
    check("Which city?" in params.message, f"the remote's question, relayed: {params.message}")
    check("city" in params.requested_schema["properties"], f"its form: {params.requested_schema}")
    return types.ElicitResult(action="accept", content={"city": "Lisbon"})


async def cancel_wait(client: Client, marker: str) -> None:
    call = asyncio.ensure_future(client.call_tool("wait", {"marker": marker}))
    await asyncio.sleep(1.0)
    call.cancel()
    try:
        await call
    except asyncio.CancelledError:
        pass
    for _ in range(100):
        if os.path.exists(marker):
            return
        await asyncio.sleep(0.1)
    raise SystemExit("interop failure: the remote's call was not canceled")


async def grown(client: Client) -> None:
    """`grow` adds a tool at the remote: the host, following the remote's list, tells this
    client on its `subscriptions/listen` stream, and lists the new tool."""
    async with client.listen(tools_list_changed=True) as changes:
        check(changes.honored.tools_list_changed, f"the host follows tool changes: {changes.honored}")
        said = await client.call_tool("grow", {})
        check(not said.is_error, f"grow: {said}")
        with anyio.fail_after(20):
            async for event in changes:
                check(isinstance(event, ToolsListChanged), f"a tool list change: {event}")
                break
    names = [t.name for t in (await client.list_tools()).tools]
    check("late" in names, f"`late` listed after the change: {names}")
    late = await client.call_tool("late", {"text": "hi"})
    check(late.structured_content == {"result": "late: hi"}, f"late: {late}")
    prompts = [p.name for p in (await client.list_prompts()).prompts]
    check("late_prompt" in prompts, f"`late_prompt` listed after the change: {prompts}")


async def content(client: Client, prompt: str) -> None:
    """The remote's resources, template and prompt, through the host (`prompt`: its name
    there)."""
    resources = {r.uri: r for r in (await client.list_resources()).resources}
    readme = resources.get("notes://readme")
    check(readme is not None and readme.title == "Read me", f"the remote's resources: {resources}")
    check(readme.mime_type == "text/markdown", f"its media type: {readme}")
    read = await client.read_resource("notes://readme")
    check(read.contents[0].text.startswith("# Notes"), f"notes://readme read: {read}")
    templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
    check("notes://{name}" in templates, f"the remote's templates: {templates}")
    read = await client.read_resource("notes://alpha")
    check(read.contents[0].text == "note alpha", f"notes://alpha read: {read}")
    prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    listed = prompts.get(prompt)
    check(listed is not None, f"`{prompt}` among the prompts: {list(prompts)}")
    required = {a.name: a.required for a in listed.arguments}
    check(required == {"text": True, "style": False}, f"its arguments: {listed.arguments}")
    got = await client.get_prompt(prompt, {"text": "a long story", "style": "brief"})
    said = got.messages[0].content.text
    check(said == "Summarize in a brief way: a long story", f"{prompt}: {got}")


async def main(base_url: str, remote: str, marker: str) -> None:
    async with Client(f"{base_url}{remote}/mcp", elicitation_callback=answer_city) as client:
        names = sorted(t.name for t in (await client.list_tools()).tools)
        check(names == ["add", "ask_city", "count", "grow", "wait"], f"the remote's tools: {names}")
        added = await client.call_tool("add", {"a": 2, "b": 3})
        check(not added.is_error and added.structured_content == {"result": 5}, f"add: {added}")
        updates = []

        async def on_progress(progress, total, message):
            updates.append((progress, total, message))

        counted = await client.call_tool("count", {"to": 3}, progress_callback=on_progress)
        # A structured result's text is its JSON at the host, as for every structured tool.
        check(counted.structured_content == {"result": "counted to 3"}, f"count: {counted}")
        check([u[2] for u in updates] == ["step 1 of 3", "step 2 of 3", "step 3 of 3"], f"progress: {updates}")
        asked = await client.call_tool("ask_city", {})
        check(asked.structured_content == {"result": "You chose Lisbon"}, f"ask_city: {asked}")
        await cancel_wait(client, marker)
        await content(client, "summarize")
        await grown(client)
    async with Client(f"{base_url}mcp") as client:
        added = await client.call_tool(f"{remote}_add", {"a": 20, "b": 22})
        check(added.structured_content == {"result": 42}, f"shared {remote}_add: {added}")
        await content(client, f"{remote}_summarize")
    print(f"{remote} ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
