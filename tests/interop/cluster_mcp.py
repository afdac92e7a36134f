"""An MCP 2025-11-25 session of the official MCP Python SDK (mcp 2.x) client through a balancer
that spreads its requests over a cluster's replicas with no stickiness: tools listed and called,
a long call's progress followed, all in one session (never initialized again) although its
requests reach every replica (the balancer's `X-Replica` header says which).

Usage: python cluster_mcp.py MCP_URL API_KEY
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def main(url: str, key: str) -> None:
    seen = []

    async def answered(response):
        request = response.request
        seen.append((request.headers.get("mcp-session-id"), response.headers.get("x-replica")))

    async with create_mcp_http_client(headers={"x-api-key": key}) as http:
        http.event_hooks = {"request": [], "response": [answered]}
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            check("convert" in names and "report" in names, f"tools {names}")
            for amount in range(1, 7):
                money = {"amount": amount, "currency": "USD"}
                result = await client.call_tool("convert", {"money": money, "to": "EUR"})
                check(not result.is_error, f"convert failed: {result}")
                check(result.structured_content["currency"] == "EUR", f"{result}")
            updates = []

            async def on_progress(progress, total, message):
                updates.append(progress)

            report = await client.call_tool(
                "report", {"currencies": ["USD", "JPY"], "pace_ms": 20}, progress_callback=on_progress
            )
            check(not report.is_error, f"report failed: {report}")
            check(len(updates) == 3, f"progress {updates}")
    sessions = {session for session, _ in seen if session}
    replicas = {replica for session, replica in seen if session}
    check(len(sessions) == 1, f"one session throughout, never initialized again: {sessions}")
    check(len(replicas) == 3, f"the session's requests reached every replica: {replicas}")
    print(f"one session over {sorted(replicas)}: tools, calls and progress")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
