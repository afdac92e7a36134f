"""Finds MCP endpoints the way a client without configuration does, then connects with the
official MCP Python SDK (mcp 2.x) client: fetch /.well-known/ai-catalog.json, keep the entries of
type application/mcp-server-card+json, fetch each card asking for its media type, take the
streamable-http remote, and connect (both eras). The MCP catalog at
/.well-known/mcp/catalog.json must name the same cards. Each document is revalidated with its
ETag (304).

Usage: python discovery_client.py BASE_URL EXPECTED_TOOL...
Each EXPECTED_TOOL must be listed by at least one endpoint found. Exits non-zero (with the
reason) on any mismatch.
"""

import asyncio
import sys

import httpx
from mcp import Client

SERVER_CARD = "application/mcp-server-card+json"


def check(condition, what):
    if not condition:
        raise SystemExit(f"interop failure: {what}")


def fetch(http: httpx.Client, url: str, media_type: str) -> dict:
    response = http.get(url, headers={"Accept": media_type})
    check(response.status_code == 200, f"GET {url}: {response.status_code} {response.text}")
    served = response.headers.get("content-type", "")
    check(served == media_type, f"GET {url} is served as {served}, not {media_type}")
    etag = response.headers.get("etag")
    again = http.get(url, headers={"Accept": media_type, "If-None-Match": etag})
    check(again.status_code == 304, f"GET {url} with If-None-Match {etag}: {again.status_code}")
    return response.json()


def find_endpoints(base_url: str) -> list[str]:
    with httpx.Client(timeout=10) as http:
        catalog = fetch(http, f"{base_url}.well-known/ai-catalog.json", "application/ai-catalog+json")
        cards = [e["url"] for e in catalog["entries"] if e["type"] == SERVER_CARD]
        check(cards, f"server cards in the AI Catalog: {catalog}")
        mcp_catalog = fetch(http, f"{base_url}.well-known/mcp/catalog.json", "application/json")
        listed = sorted(e["url"] for e in mcp_catalog["entries"] if e["type"] == SERVER_CARD)
        check(listed == sorted(cards), f"the MCP catalog names the same cards: {listed} {cards}")
        endpoints = []
        for url in cards:
            card = fetch(http, url, SERVER_CARD)
            remote = next(r for r in card["remotes"] if r["type"] == "streamable-http")
            check("2025-11-25" in remote["supportedProtocolVersions"], f"versions of {url}: {remote}")
            endpoints.append(remote["url"])
        return endpoints


async def main(base_url: str, expected: list[str]) -> None:
    endpoints = find_endpoints(base_url)
    seen = set()
    for url in endpoints:
        for mode in ("legacy", "auto"):
            async with Client(url, mode=mode) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                check(names, f"[{mode}] tools at {url}")
                seen.update(names)
    missing = [name for name in expected if name not in seen]
    check(not missing, f"tools {missing} on no endpoint found ({sorted(seen)})")
    print(f"found {len(endpoints)} endpoints: {endpoints}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
