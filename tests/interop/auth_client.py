"""Authenticates to a served agent with bearer tokens through the official Python clients.

Usage: python auth_client.py BASE_URL TOKEN READER_TOKEN ISSUER
TOKEN grants `vault:open`, READER_TOKEN does not. With a2a-sdk 1.x (JSON-RPC and HTTP+JSON): no
token is refused, the token reaches the skill's `Caller`, and the scoped skill is refused to the
reader. With mcp 2.x: the same over streamable HTTP (both eras), and the client's OAuth discovery
(RFC 9728, SEP-985) finds the protected-resource metadata from the 401's challenge.
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import sys

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2
from mcp import Client
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    extract_resource_metadata_from_www_auth,
    handle_protected_resource_response,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


def request(skill: str, data: dict, message_id: str):
    return json_format.ParseDict(
        {
            "message": {
                "messageId": message_id,
                "role": "ROLE_USER",
                "parts": [{"data": data}],
                "metadata": {"skill": skill},
            }
        },
        a2a_pb2.SendMessageRequest(),
    )


async def a2a(base_url: str, token: str, reader: str, binding: str) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    schemes = sorted(card.security_schemes.keys())
    check(schemes == ["apiKey", "bearer"], f"[{binding}] card schemes {schemes}")

    async def send(bearer, skill, data, message_id):
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        async with httpx.AsyncClient(timeout=30, headers=headers) as http:
            config = ClientConfig(streaming=False, supported_protocol_bindings=[binding], httpx_client=http)
            client = await create_client(card, client_config=config)
            try:
                return [event async for event in client.send_message(request(skill, data, message_id))]
            finally:
                await client.close()

    try:
        await send(None, "whoami", {}, "py-anon")
        raise SystemExit(f"[{binding}] a request without a token was served")
    except SystemExit:
        raise
    except Exception as error:  # the SDK's error type differs per binding
        check("401" in str(error) or "uthenticat" in str(error), f"[{binding}] no-token error {error!r}")

    events = await send(token, "whoami", {}, "py-who")
    task = events[0].task
    check(task.status.state == a2a_pb2.TASK_STATE_COMPLETED, f"[{binding}] whoami state {task.status.state}")
    text = task.artifacts[0].parts[0].text
    check(text == "ivy via bearer [vault:open]", f"[{binding}] whoami {text!r}")

    try:
        await send(reader, "open", {"item": "gold"}, "py-open")
        raise SystemExit(f"[{binding}] the reader opened the vault")
    except SystemExit:
        raise
    except Exception as error:
        check("vault:open" in str(error) or "403" in str(error), f"[{binding}] scope error {error!r}")
    events = await send(token, "open", {"item": "gold"}, "py-open-2")
    check(events[0].task.artifacts[0].parts[0].text == "took gold", f"[{binding}] open {events}")
    print(f"a2a [{binding}] ok")


async def mcp(url: str, token: str, issuer: str) -> None:
    for mode in ("legacy", "auto"):
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            check("open" in names and "whoami" in names, f"[{mode}] tools {names}")
            result = await client.call_tool("whoami", {})
            check(not result.is_error, f"[{mode}] whoami failed: {result}")
            check(result.content[0].text == "ivy via bearer [vault:open]", f"[{mode}] whoami {result.content}")
        print(f"mcp [{mode}] ok")

    # OAuth discovery as the SDK's provider does it: the 401's challenge names the metadata.
    async with create_mcp_http_client() as http:
        refused = await http.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
            headers={"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"},
        )
        check(refused.status_code == 401, f"unauthenticated tools/list status {refused.status_code}")
        www = extract_resource_metadata_from_www_auth(refused)
        check(www is not None, f"no resource_metadata in {refused.headers.get_list('www-authenticate')}")
        metadata = None
        for candidate in build_protected_resource_metadata_discovery_urls(www, url):
            metadata = await handle_protected_resource_response(await http.get(candidate))
            if metadata is not None:
                break
        check(metadata is not None, "protected resource metadata not found")
        check(str(metadata.resource).rstrip("/") == url.rstrip("/"), f"resource {metadata.resource}")
        servers = [str(s).rstrip("/") for s in metadata.authorization_servers]
        check(servers == [issuer.rstrip("/")], f"authorization servers {servers}")
        check(metadata.scopes_supported == ["vault:open"], f"scopes {metadata.scopes_supported}")
    print("mcp oauth discovery ok")


async def main(base_url: str, token: str, reader: str, issuer: str) -> None:
    for binding in ("JSONRPC", "HTTP+JSON"):
        await a2a(base_url, token, reader, binding)
    await mcp(f"{base_url}mcp", token, issuer)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
