"""Drives the shared MCP endpoint of a server hosting several agents (examples/agent-host) with
the official MCP Python SDK (mcp 2.x) client, in both eras.

Usage: python host_mcp.py BASE_URL [HOST_BINARY]
On BASE_URL/mcp the tools of every agent are listed as `{agent}_{tool}` and each call reaches its
agent (with progress for a long one); on BASE_URL/hello/mcp only the hello agent's tools are
listed, under their own names. With HOST_BINARY, the same host started with --stdio serves what
its shared endpoint serves, over stdin and stdout. Exits non-zero (with the reason) on any
mismatch.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def shared(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        for name in ("currency_convert", "currency_report", "booking_book_table", "hello_greet"):
            check(name in names, f"[{mode}] {name} listed on the shared endpoint: {names}")
        check(all("_" in n and n.split("_", 1)[0] in ("currency", "booking", "hello") for n in names), f"[{mode}] every name namespaced: {names}")
        converted = await client.call_tool("currency_convert", {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"})
        check(not converted.is_error and converted.structured_content["currency"] == "EUR", f"[{mode}] convert {converted}")
        greeted = await client.call_tool("hello_greet", {"name": "Ada"})
        check(not greeted.is_error and greeted.content[0].text == "Hello, Ada!", f"[{mode}] greet {greeted}")
        updates = []

        async def on_progress(progress, total, message):
            updates.append(message)

        report = await client.call_tool("currency_report", {"currencies": ["USD", "JPY"], "pace_ms": 20}, progress_callback=on_progress)
        check(not report.is_error, f"[{mode}] report {report}")
        check("Researching USD" in updates, f"[{mode}] progress through the shared endpoint: {updates}")
        print(f"[{mode}] shared ok: {len(names)} tools")


async def own(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        check(names == ["greet"], f"[{mode}] the hello agent's own endpoint lists its own tools: {names}")
        print(f"[{mode}] own ok: {names}")


async def main(base_url: str, binary: str | None) -> None:
    for mode in ("legacy", "auto"):
        await shared(f"{base_url}mcp", mode)
        await own(f"{base_url}hello/mcp", mode)
    if binary:
        stdio = StdioServerParameters(command=binary, args=["--stdio", "--store", "memory"])
        await shared(stdio, "legacy")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
