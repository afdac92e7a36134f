"""Reads the currency agent's resources, resource templates, prompts, completions and a task
artifact with the official MCP Python SDK (mcp 2.x) client, in both protocol eras; it also follows a
running task's artifact and waits for its update notification, with resources/subscribe in the
legacy era and a subscriptions/listen stream on 2026-07-28.

Usage: python mcp_content.py BASE_URL   (the agent's base URL; MCP is at BASE_URL + "mcp")
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import json
import sys
import warnings

import httpx
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference


# resources/subscribe is a 2025-era method, used here on purpose in the legacy era.
warnings.filterwarnings("ignore", message="resources/subscribe is removed")


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def a2a_send(base: str, parts, skill: str, immediately: bool = False) -> dict:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {"messageId": "mcp-content", "role": "ROLE_USER", "parts": parts, "metadata": {"skill": skill}},
            "configuration": {"returnImmediately": immediately},
        },
    }
    async with httpx.AsyncClient(timeout=30) as http:
        answer = (await http.post(base, json=body, headers={"A2A-Version": "1.0"})).json()
    check("result" in answer, f"A2A send failed: {answer}")
    return answer["result"]["task"]


async def exercise(base: str, mode: str) -> None:
    async with Client(base + "mcp", mode=mode) as client:
        resources = (await client.list_resources()).resources
        table = next((r for r in resources if r.uri == "currency://rates"), None)
        check(table is not None, f"[{mode}] resources {resources}")
        check(table.mime_type == "application/json" and table.description, f"[{mode}] rate table {table}")
        templates = {t.uri_template: t for t in (await client.list_resource_templates()).resource_templates}
        check("currency://rates/{base}" in templates, f"[{mode}] templates {list(templates)}")
        check("a2a://tasks/{taskId}/artifacts/{artifactId}" in templates, f"[{mode}] templates {list(templates)}")

        read = await client.read_resource("currency://rates")
        rates = json.loads(read.contents[0].text)
        check(len(rates) == 5 and read.contents[0].mime_type == "application/json", f"[{mode}] rates {read}")
        read = await client.read_resource("currency://rates/usd")
        against_usd = {r["currency"]: r["rate"] for r in json.loads(read.contents[0].text)}
        check(against_usd["USD"] == 1.0 and read.contents[0].uri == "currency://rates/usd", f"[{mode}] {against_usd}")
        try:
            await client.read_resource("currency://rates/XYZ")
            check(False, f"[{mode}] an unknown currency must be an error")
        except MCPError as error:
            check(error.error.code == -32602 and "XYZ" in error.error.message, f"[{mode}] bad read {error.error}")
        try:
            await client.read_resource("currency://nothing-here")
            check(False, f"[{mode}] an unknown resource must be an error")
        except MCPError as error:
            check(error.error.code == -32602 and error.error.data["uri"] == "currency://nothing-here", f"[{mode}] {error.error}")
        print(f"[{mode}] resources ok")

        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        explain = prompts.get("explain_conversion")
        check(explain is not None, f"[{mode}] prompts {list(prompts)}")
        arguments = {a.name: a.required for a in explain.arguments}
        check(arguments == {"amount": True, "from": True, "to": True, "tone": False}, f"[{mode}] arguments {arguments}")
        prompt = await client.get_prompt("explain_conversion", {"amount": "10", "from": "usd", "to": "EUR"})
        text = prompt.messages[0].content.text
        check(prompt.messages[0].role == "user" and "Convert 10 USD into EUR" in text, f"[{mode}] prompt {prompt}")
        try:
            await client.get_prompt("explain_conversion", {"amount": "ten", "from": "USD", "to": "EUR"})
            check(False, f"[{mode}] a bad argument must be an error")
        except MCPError as error:
            check(error.error.code == -32602 and "amount" in error.error.message, f"[{mode}] bad prompt {error.error}")
        completed = await client.complete(PromptReference(type="ref/prompt", name="explain_conversion"), {"name": "to", "value": "u"})
        check(completed.completion.values == ["USD"], f"[{mode}] completion {completed}")
        # `tone` has a completer fn, which sees the arguments chosen so far.
        ref = PromptReference(type="ref/prompt", name="explain_conversion")
        tones = await client.complete(ref, {"name": "tone", "value": "f"})
        check(tones.completion.values == ["friendly"], f"[{mode}] tones {tones}")
        tones = await client.complete(ref, {"name": "tone", "value": "f"}, context_arguments={"amount": "50000"})
        check(tones.completion.values == ["friendly", "formal"], f"[{mode}] tones for a large amount {tones}")
        print(f"[{mode}] prompts ok")

        task = await a2a_send(base, [{"data": {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"}}], "convert")
        uri = f"a2a://tasks/{task['id']}/artifacts/{task['artifacts'][0]['artifactId']}"
        read = await client.read_resource(uri)
        quote = json.loads(read.contents[0].text)
        check(quote["currency"] == "EUR" and read.contents[0].mime_type == "application/json", f"[{mode}] artifact {read}")
        print(f"[{mode}] task artifact ok")


async def subscription(base: str) -> None:
    updated = asyncio.Event()
    seen = []

    async def on_message(message) -> None:
        seen.append(message)
        if "notifications/resources/updated" in repr(message) or "ResourceUpdated" in type(getattr(message, "root", message)).__name__:
            updated.set()

    async with Client(base + "mcp", mode="legacy", message_handler=on_message) as client:
        uri = await running_artifact(base)
        await client.subscribe_resource(uri)
        await asyncio.wait_for(updated.wait(), 10)
        print("subscription ok:", uri)


async def running_artifact(base: str) -> str:
    """Starts a slow report and returns the URI of its first artifact once there is one."""
    task = await a2a_send(base, [{"data": {"currencies": ["USD", "JPY", "GBP"], "pace_ms": 400}}], "report", immediately=True)
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(100):
            got = (await http.post(base, json={"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task["id"]}}, headers={"A2A-Version": "1.0"})).json()
            artifacts = got["result"].get("artifacts", [])
            if artifacts:
                break
            await asyncio.sleep(0.05)
    check(artifacts, f"the report never produced an artifact: {got}")
    return f"a2a://tasks/{task['id']}/artifacts/{artifacts[0]['artifactId']}"


async def listening(base: str) -> None:
    async with Client(base + "mcp", mode="2026-07-28") as client:
        uri = await running_artifact(base)
        async with client.listen(resource_subscriptions=[uri], tools_list_changed=True) as sub:
            honored = sub.honored
            check(list(honored.resource_subscriptions or []) == [uri], f"honored {honored}")
            check(not honored.tools_list_changed, f"tool lists never change here: {honored}")
            event = await asyncio.wait_for(sub.__anext__(), 10)
            check(uri in repr(event), f"listen event {event}")
    print("listen ok:", uri)


async def main(base: str) -> None:
    for mode in ("legacy", "auto"):
        await exercise(base, mode)
    await subscription(base)
    await listening(base)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
