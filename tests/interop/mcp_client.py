"""Drives a served agent with the official MCP Python SDK (mcp 2.x) client.

Usage: python mcp_client.py http URL       (both eras: legacy initialize and modern stateless)
       python mcp_client.py stdio COMMAND  (the server binary, started with --stdio)
Lists tools and calls them, with progress notifications for a long call. Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import base64
import sys
import warnings

from mcp import Client
from mcp.client.stdio import StdioServerParameters


# logging/setLevel is a 2025-era method, used here on purpose in the legacy era.
warnings.filterwarnings("ignore", message="The logging capability is deprecated")


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


async def exercise(server, mode: str) -> None:
    logs = []

    async def on_log(params) -> None:
        logs.append(params)

    log_level = None if mode == "legacy" else "info"
    async with Client(server, mode=mode, logging_callback=on_log, log_level=log_level) as client:
        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        check(names == ["chart", "convert", "exchange", "is-supported", "rates", "report"], f"[{mode}] tools {names}")
        convert = tools[1]
        check(convert.input_schema["type"] == "object", f"[{mode}] input schema {convert.input_schema}")
        check(convert.output_schema is not None, f"[{mode}] output schema missing")

        result = await client.call_tool("convert", {"money": {"amount": 10, "currency": "USD"}, "to": "EUR"})
        check(not result.is_error, f"[{mode}] convert failed: {result}")
        check(result.structured_content["currency"] == "EUR", f"[{mode}] structured {result.structured_content}")

        chart = await client.call_tool("chart", {"base": "USD"})
        check(not chart.is_error, f"[{mode}] chart failed: {chart}")
        image = chart.content[0]
        check(image.type == "image" and image.mime_type == "image/svg+xml", f"[{mode}] chart content {image}")
        svg = base64.b64decode(image.data)
        check(svg.startswith(b"<svg") and b"JPY" in svg, f"[{mode}] chart image {svg[:80]!r}")

        rates = await client.call_tool("rates", {})
        check(len(rates.structured_content["result"]) == 5, f"[{mode}] rates {rates.structured_content}")

        updates = []

        async def on_progress(progress, total, message):
            updates.append((progress, total, message))

        if mode == "legacy":
            await client.set_logging_level("info")

        report = await client.call_tool(
            "report", {"currencies": ["USD", "JPY"], "pace_ms": 20}, progress_callback=on_progress
        )
        check(not report.is_error, f"[{mode}] report failed: {report}")
        text = "".join(block.text for block in report.content)
        check("## USD" in text and "## JPY" in text, f"[{mode}] report content {text!r}")
        values = [u[0] for u in updates]
        check(values == sorted(set(values)) and len(values) == 3, f"[{mode}] progress must grow: {updates}")
        check(all(u[1] == 2 for u in updates), f"[{mode}] progress total {updates}")
        check(updates[0][2] == "Researching USD", f"[{mode}] progress message {updates}")
        # The skill's `tracing` events, as log notifications (the legacy session set its level;
        # the modern client sends one per request).
        sections = [log for log in logs if isinstance(log.data, dict) and log.data.get("message") == "section written"]
        check([s.data["currency"] for s in sections] == ["USD", "JPY"], f"[{mode}] log messages {logs}")
        check(all(s.level == "info" and s.logger == "currency" for s in sections), f"[{mode}] log levels {sections}")

        bad = await client.call_tool("convert", {"money": {"amount": "ten", "currency": "USD"}, "to": "EUR"})
        check(bad.is_error, f"[{mode}] bad arguments should be a tool error: {bad}")
        print(f"[{mode}] ok: {names}")


async def main(kind: str, target: str) -> None:
    if kind == "http":
        for mode in ("legacy", "auto"):
            await exercise(target, mode)
    else:
        server = StdioServerParameters(command=target, args=["--stdio"])
        await exercise(server, "legacy")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
