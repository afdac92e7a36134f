"""Signs in to an agent through its own authorization server with the official MCP Python SDK's
OAuth client (`OAuthClientProvider`), playing the browser: discovery from the 401, registration
(dynamic, or the client ID metadata document at CLIENT_METADATA_URL), the consent page and its
form, the redirect with `code`, `state` and `iss`, the token exchange, a protected tool call, and
after the access token expires, a refresh and another call.

Usage: python mcp_oauth.py MCP_URL [CLIENT_METADATA_URL]
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import re
import sys
from urllib.parse import parse_qs, urlparse

import httpx
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

REDIRECT_URI = "http://127.0.0.1:3030/callback"


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


class Memory(TokenStorage):
    def __init__(self):
        self.tokens: list[OAuthToken] = []
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens[-1] if self.tokens else None

    async def set_tokens(self, tokens):
        self.tokens.append(tokens)

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Person:
    """The browser: opens the authorization URL, reads the consent page, approves every scope."""

    def __init__(self):
        self.redirect: dict[str, str | None] = {}
        self.consent_pages = 0

    async def open(self, url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as browser:
            page = await browser.get(url)
            check(page.status_code == 200, f"consent page: HTTP {page.status_code} {page.text[:300]}")
            html = page.text
            check("Allow" in html and "127.0.0.1" in html, "the consent page names the redirect host")
            self.consent_pages += 1
            field = lambda name: re.search(f'name="{name}" value="([^"]*)"', html).group(1)
            action = re.search(r'<form method="post" action="([^"]+)"', html).group(1)
            scopes = re.findall(r'name="scope" value="([^"]+)"', html)
            form = {"request": field("request"), "csrf": field("csrf"), "decision": "approve", "scope": scopes}
            answer = await browser.post(action, data=form)
            check(answer.status_code == 303, f"consent answer: HTTP {answer.status_code} {answer.text[:300]}")
            location = answer.headers["location"]
            check(location.startswith(REDIRECT_URI), f"redirected to {location}")
            query = parse_qs(urlparse(location).query)
            self.redirect = {name: query.get(name, [None])[0] for name in ("code", "state", "iss")}

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(**self.redirect)


async def main(mcp_url: str, document_url: str | None) -> None:
    storage = Memory()
    person = Person()
    metadata = OAuthClientMetadata(
        client_name="interop client",
        redirect_uris=[REDIRECT_URI],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=person.open,
        callback_handler=person.callback,
        client_metadata_url=document_url,
    )
    async with create_mcp_http_client(auth=provider) as http:
        async with Client(streamable_http_client(mcp_url, http_client=http)) as client:
            result = await client.call_tool("borrow", {"title": "Dune"})
            text = result.content[0].text
            check(text == "alice borrowed Dune", f"tool answered {text!r}")
            check(person.consent_pages == 1, "one sign-in")
            client_id = storage.client.client_id
            if document_url:
                check(client_id == document_url, f"client id {client_id} is the metadata document's URL")
            else:
                check(client_id.startswith("c-"), f"a registered client id, not {client_id}")
            first = storage.tokens[-1]
            check(first.refresh_token, "a refresh token was issued")
            # The server's access tokens live two seconds: the next call refreshes first.
            await asyncio.sleep(3)
            result = await client.call_tool("borrow", {"title": "Emma"})
            check(result.content[0].text == "alice borrowed Emma", "the call after the refresh")
            check(len(storage.tokens) >= 2, "the tokens were refreshed")
            check(storage.tokens[-1].refresh_token != first.refresh_token, "the refresh token rotated")
            check(person.consent_pages == 1, "refreshing asked nobody")
    print(f"mcp oauth ok ({'metadata document' if document_url else 'dynamic registration'})")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
