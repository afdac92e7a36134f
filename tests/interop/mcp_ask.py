"""Completes the booking agent's multi-turn skill with the official MCP Python SDK (mcp 2.x).

Usage: python mcp_ask.py http URL       (both eras)
       python mcp_ask.py stdio COMMAND  (the server binary, started with --stdio; legacy era)
Legacy era: the server asks with elicitation/create while the call stays open. Modern era
(2026-07-28): the call returns an input-required result and the client retries with the answers.
Both answer "Which day?" badly once (the question comes back naming the problem), then properly,
then confirm. A client without elicitation support gets a tool error naming what was needed
(2025 sessions), or the request is refused with -32021 naming the capability (2026-07-28).
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


class Person:
    """Answers the booking questions the way a user at an elicitation form would."""

    def __init__(self):
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params.message)
        schema = params.requested_schema
        check(schema["type"] == "object" and "answer" in schema["properties"], f"form {schema}")
        if "Which day" in params.message:
            day = "the day after tomorrow" if len(self.asked) == 1 else "2999-03-04"
            return types.ElicitResult(action="accept", content={"answer": day})
        if params.message.startswith("Book a table"):
            # A documented enum is a titled choice: the values with their doc comments as titles.
            choices = schema["properties"]["answer"]["oneOf"]
            check([c["const"] for c in choices] == ["yes", "no"], f"confirm form {schema}")
            check([c["title"] for c in choices] == ["Go ahead.", "Do not."], f"confirm titles {schema}")
            return types.ElicitResult(action="accept", content={"answer": "yes"})
        return types.ElicitResult(action="decline")


async def book(url: str, mode: str) -> None:
    person = Person()
    async with Client(url, mode=mode, elicitation_callback=person) as client:
        era = client.protocol_version
        check((era == "2026-07-28") == (mode == "auto"), f"[{mode}] negotiated {era}")
        result = await client.call_tool("book_table", {"restaurant": "Luigi's", "guests": 2})
        check(not result.is_error, f"[{mode}] booking failed: {result}")
        booked = result.structured_content
        check(booked["date"] == "2999-03-04" and booked["confirmed"], f"[{mode}] booking {booked}")
        check(len(person.asked) == 3, f"[{mode}] questions {person.asked}")
        check(person.asked[0] == "Which day should I book? (YYYY-MM-DD)", f"[{mode}] first {person.asked}")
        check(person.asked[1].startswith("Could not use that answer ("), f"[{mode}] re-ask {person.asked}")
        check(person.asked[2] == "Book a table for 2 at Luigi's on 2999-03-04? (yes/no)", f"[{mode}] confirm {person.asked}")

        # Declining the question ends the call with a tool error, not a protocol error.
        async def decline(context, params):
            return types.ElicitResult(action="decline")

        client_decline = Client(url, mode=mode, elicitation_callback=decline)
        async with client_decline as other:
            declined = await other.call_tool("book_table", {"restaurant": "Luigi's", "guests": 2})
            check(declined.is_error, f"[{mode}] a declined question must fail the call: {declined}")
            text = declined.content[0].text
            check("declined" in text and "Which day" in text, f"[{mode}] decline text {text!r}")
    print(f"[{mode}/{era}] ok: asked {len(person.asked)} questions, booked {booked['reference']}")


async def unanswerable(url: str, mode: str) -> None:
    async with Client(url, mode=mode) as client:
        try:
            result = await client.call_tool("book_table", {"restaurant": "Luigi's", "guests": 2})
        except MCPError as error:
            # 2026-07-28: the request is refused, naming the capability it needs.
            check(mode != "legacy", f"[{mode}] a 2025 session gets a tool error, not {error}")
            check(error.error.code == -32021, f"[{mode}] code {error.error}")
            check("elicitation" in error.error.data["requiredCapabilities"], f"[{mode}] data {error.error}")
            check("Which day should I book?" in error.error.message, f"[{mode}] message {error.error}")
            print(f"[{mode}] ok: a client without elicitation is refused with -32021")
            return
        check(mode == "legacy", f"[{mode}] a 2026-07-28 call must be refused with -32021: {result}")
        check(result.is_error, f"[{mode}] without elicitation the call must fail: {result}")
        text = result.content[0].text
        check("needs more input" in text and "Which day should I book?" in text, f"[{mode}] text {text!r}")
        check("elicitation" in text, f"[{mode}] the error must say what is missing: {text!r}")
    print(f"[{mode}] ok: a client without elicitation is told what was needed")


async def main(kind: str, target: str) -> None:
    if kind == "http":
        for mode in ("legacy", "auto"):
            await book(target, mode)
            await unanswerable(target, mode)
    else:
        server = StdioServerParameters(command=target, args=["--stdio"])
        await book(server, "legacy")
        await unanswerable(server, "legacy")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
