"""Signs in to an agent through its own authorization server with the official MCP Python SDK's
OAuth client (`OAuthClientProvider`), playing the browser: discovery from the 401, registration
(dynamic, or the client ID metadata document at CLIENT_METADATA_URL), an upstream provider's
sign-in if the server uses one, the consent page and its form, the redirect with `code`, `state`
and `iss`, the token exchange, a protected tool call, and
after the access token expires, a refresh and another call.

Usage: python mcp_oauth.py MCP_URL PRINCIPAL [CLIENT_METADATA_URL]
PRINCIPAL is who the tool says called it: the development sign-in's user, or the login typed at
the upstream provider's sign-in page.
Exits non-zero (with the reason) on any mismatch.
"""

import asyncio
import re
import sys
from urllib.parse import parse_qs, urljoin, urlparse

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
    """The browser: follows the authorization request through whatever sign-in the server uses
    (an upstream provider's sign-in and consent pages, typing LOGIN), then approves every scope
    on the server's consent page."""

    def __init__(self, login: str):
        self.login = login
        self.redirect: dict[str, str | None] = {}
        self.consent_pages = 0
        self.upstream_pages = 0

    async def open(self, url: str) -> None:
        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as browser:
            response = await browser.get(url)
            for _ in range(20):
                if response.is_redirect:
                    location = urljoin(str(response.url), response.headers["location"])
                    if location.startswith(REDIRECT_URI):
                        query = parse_qs(urlparse(location).query)
                        check("error" not in query, f"the authorization failed: {location}")
                        self.redirect = {n: query.get(n, [None])[0] for n in ("code", "state", "iss")}
                        return
                    response = await browser.get(location)
                    continue
                check(response.status_code == 200, f"HTTP {response.status_code} at {response.url}: {response.text[:300]}")
                response = await self.answer(browser, response)
            raise SystemExit("interop failure: the authorization did not come back to the client")

    async def answer(self, browser, page):
        html = page.text
        action = urljoin(str(page.url), re.search(r'<form[^>]* action="([^"]+)"', html).group(1))
        if 'name="csrf"' in html:
            check("127.0.0.1" in html, "the consent page names the redirect host")
            self.consent_pages += 1
            field = lambda name: re.search(f'name="{name}" value="([^"]*)"', html).group(1)
            scopes = re.findall(r'name="scope" value="([^"]+)"', html)
            form = {"request": field("request"), "csrf": field("csrf"), "decision": "approve", "scope": scopes}
            answer = await browser.post(action, data=form)
            check(answer.status_code == 303, f"consent answer: HTTP {answer.status_code} {answer.text[:300]}")
            return answer
        self.upstream_pages += 1
        if 'name="login"' in html:
            return await browser.post(action, data={"prompt": "login", "login": self.login, "password": "x"})
        check('value="consent"' in html, f"an unexpected page at {page.url}: {html[:300]}")
        return await browser.post(action, data={"prompt": "consent"})

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(**self.redirect)


async def main(mcp_url: str, principal: str, document_url: str | None) -> None:
    storage = Memory()
    person = Person(principal)
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
            check(text == f"{principal} borrowed Dune", f"tool answered {text!r}")
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
            check(result.content[0].text == f"{principal} borrowed Emma", "the call after the refresh")
            check(len(storage.tokens) >= 2, "the tokens were refreshed")
            check(storage.tokens[-1].refresh_token != first.refresh_token, "the refresh token rotated")
            check(person.consent_pages == 1, "refreshing asked nobody")
    how = "metadata document" if document_url else "dynamic registration"
    upstream = f", {person.upstream_pages} upstream pages" if person.upstream_pages else ""
    print(f"mcp oauth ok ({how}{upstream})")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
