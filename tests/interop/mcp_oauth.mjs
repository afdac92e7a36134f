// Signs in to an agent through its own authorization server with the official MCP TypeScript
// SDK's OAuth client (an `OAuthClientProvider` given to `StreamableHTTPClientTransport`),
// playing the browser: the SDK connects, a protected tool call answers 401, the SDK discovers
// the authorization server from the challenge, registers, and sends the person to consent;
// the consent page is approved, the code handed to `finishAuth`; the call is made again as the
// signed-in user; after the access token expires the SDK refreshes it and a third call works.
//
// Usage: node mcp_oauth.mjs MCP_URL PRINCIPAL
// A2A_TEST_MCP_SDK names the SDK's package directory. Exits non-zero, saying why, on a mismatch.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { Provider, approve as approveAll } from './signin.mjs';

const [mcpUrl, principal] = process.argv.slice(2);
const sdk = (file) => import(pathToFileURL(path.join(process.env.A2A_TEST_MCP_SDK, 'dist', 'esm', file)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');

function check(condition, what) {
  if (!condition) {
    console.error(`interop failure: ${what}`);
    process.exit(1);
  }
}

const borrow = { name: 'borrow', arguments: { title: 'Dune' } };
const text = (result) => result.content?.[0]?.text;

/** The person approves; the answer carries the state and names its issuer (RFC 9207). */
async function approve(url) {
  const back = await approveAll(url, check);
  check(back.searchParams.get('state') === 'ts-interop-state', 'the state comes back');
  check(back.searchParams.get('iss') !== null, 'the answer names its issuer (RFC 9207)');
  return back.searchParams.get('code');
}

const provider = new Provider('TypeScript interop client', 'ts-interop-state');
let transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
let client = new Client({ name: 'ts-interop', version: '1.0.0' });
await client.connect(transport);
try {
  await client.callTool(borrow);
  check(false, 'a protected tool answered without a token');
} catch (error) {
  check(error instanceof UnauthorizedError, `the first call: ${error}`);
}
check(provider.authorizationUrl !== null, 'the SDK asked to send the person to sign in');
check(provider.authorizationUrl.searchParams.get('resource') !== null, 'the request names the resource (RFC 8707)');
// The session's stream, which the SDK opens as it connects, starts no sign-in of its own
// beside the refused call's: two would race, each with its own client and code verifier.
check(provider.redirects === 1 && provider.registrations === 1,
  `one sign-in: ${provider.registrations} registrations, ${provider.redirects} redirects`);
await transport.finishAuth(await approve(provider.authorizationUrl));
check(provider.saved.length === 1, 'the code was exchanged for tokens');
// A new connection with the tokens, as an application does after finishing the sign-in.
// The anonymous session ends (its stream, which needs no sign-in, is open until then).
await client.close();
transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
client = new Client({ name: 'ts-interop', version: '1.0.0' });
await client.connect(transport);
const called = await client.callTool(borrow);
check(text(called) === `${principal} borrowed Dune`, `the call as the user: ${JSON.stringify(called)}`);
// The access token expires (two seconds of life, five of tolerated clock skew): the SDK
// refreshes it on the 401 and the call goes through.
await new Promise((resolve) => setTimeout(resolve, 9000));
const again = await client.callTool(borrow);
check(text(again) === `${principal} borrowed Dune`, `the call after expiry: ${JSON.stringify(again)}`);
check(provider.saved.length >= 2, 'the tokens were refreshed');
check(provider.saved.at(-1).refresh_token !== provider.saved[0].refresh_token, 'the refresh token rotated');
await client.close();
console.log(`signed in as ${principal}, called, refreshed`);
