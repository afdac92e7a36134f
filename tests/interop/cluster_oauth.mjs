// Signs in through a cluster's authorization server with the official MCP TypeScript SDK's
// OAuth client, every request through a balancer that spreads them over the replicas with no
// stickiness: discovery, registration, authorization, consent and the token exchange each land
// wherever the balancer sends them (its `X-Replica` header says where). Then a tool call as the
// user, a refresh once the access token expired, and revocation (RFC 7009) of both tokens, after
// which every replica refuses the access token and the refresh token.
//
// Usage: node cluster_oauth.mjs MCP_URL PRINCIPAL
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

// Every request any part of this script makes, with the replica that answered it.
const served = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const replica = response.headers.get('x-replica');
  served.push({ method: init?.method ?? 'GET', path: url.pathname, status: response.status, replica });
  return response;
};
// On a failure, every request made and who answered it, to follow it in the replicas' logs.
process.on('exit', (code) => {
  if (code !== 0) console.error(`requests made: ${JSON.stringify(served)}`);
});
const replicasOf = (pathEnd) => served.filter((s) => s.path.endsWith(pathEnd)).map((s) => s.replica);

const greet = { name: 'greet', arguments: { name: 'Ada' } };
const text = (result) => result.content?.[0]?.text;

/** The person approves, wherever the consent page and its answer are served. */
async function approve(url) {
  const back = await approveAll(url, check);
  check(back.searchParams.get('state') === 'cluster-state', 'the state comes back');
  return back.searchParams.get('code');
}

const provider = new Provider('Cluster sign-in client', 'cluster-state');
let transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
let client = new Client({ name: 'cluster-sign-in', version: '1.0.0' });
try {
  await client.connect(transport);
  await client.callTool(greet);
  check(false, 'a protected tool answered without a token');
} catch (error) {
  check(error instanceof UnauthorizedError, `the first call: ${error}`);
}
check(provider.authorizationUrl !== null, 'the SDK asked to send the person to sign in');
// The session's stream, which the SDK opens as it connects, starts no sign-in of its own
// beside the refused call's: two would race, each with its own client and code verifier.
check(provider.redirects === 1 && provider.registrations === 1,
  `one sign-in: ${provider.registrations} registrations, ${provider.redirects} redirects`);
await transport.finishAuth(await approve(provider.authorizationUrl));
check(provider.saved.length === 1, 'the code was exchanged for tokens');
// The anonymous session ends (its stream, which needs no sign-in, is open until then).
await client.close();
transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
client = new Client({ name: 'cluster-sign-in', version: '1.0.0' });
await client.connect(transport);
const called = await client.callTool(greet);
check(text(called) === 'Hello, Ada!', `the call as ${principal}: ${JSON.stringify(called)}`);
// The access token expires (two seconds of life, five of tolerated clock skew); the SDK refreshes
// it on the 401, wherever the refresh lands.
await new Promise((resolve) => setTimeout(resolve, 8000));
const again = await client.callTool(greet);
check(text(again) === 'Hello, Ada!', `the call after expiry: ${JSON.stringify(again)}`);
check(provider.saved.length >= 2, 'the tokens were refreshed');
await client.close();

const steps = {
  register: replicasOf('/oauth/register'),
  authorize: replicasOf('/oauth/authorize'),
  consent: replicasOf('/oauth/consent'),
  token: replicasOf('/oauth/token'),
};
const replicas = new Set(Object.values(steps).flat());
check(!replicas.has(null), `every answer names its replica: ${JSON.stringify(steps)}`);
check(replicas.size === 3, `the sign-in's steps reached every replica: ${JSON.stringify(steps)}`);

// Revoked on one replica, refused by all of them: each first accepts the token (and keeps it as
// verified), then refuses it once another replica revoked it.
const metadata = await (await fetch(new URL('/.well-known/oauth-authorization-server', mcpUrl))).json();
const { access_token: access, refresh_token: refresh } = provider.saved.at(-1);
const agentUrl = new URL('.', mcpUrl);
const send = () => fetch(agentUrl, {
  method: 'POST',
  headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
  body: JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'SendMessage',
    params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'Ada' }] } },
  }),
});
const answeredBy = new Set();
for (let i = 0; i < 6; i++) {
  const answered = await send();
  check(answered.status === 200, `the token on ${answered.headers.get('x-replica')}: HTTP ${answered.status}`);
  const body = await answered.json();
  check(body.result !== undefined, `the token on ${answered.headers.get('x-replica')}: ${JSON.stringify(body)}`);
  answeredBy.add(answered.headers.get('x-replica'));
}
check(answeredBy.size === 3, `every replica accepted the token: ${[...answeredBy]}`);
for (const token of [access, refresh]) {
  const revoked = await fetch(metadata.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: provider.client.client_id }),
  });
  check(revoked.status === 200, `revocation: HTTP ${revoked.status}`);
}
// Another replica learns of a revocation from the database's notification, within milliseconds:
// a request racing it is tried again for up to a second (a hang guard, not a timing check).
const refusedBy = new Set();
for (let i = 0; i < 6; i++) {
  let refused = await send();
  for (let tries = 0; refused.status === 200 && tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    refused = await send();
  }
  check(refused.status === 401, `a revoked token on ${refused.headers.get('x-replica')}: HTTP ${refused.status}`);
  refusedBy.add(refused.headers.get('x-replica'));
}
check(refusedBy.size === 3, `every replica refused the revoked token: ${[...refusedBy]}`);
const refreshed = await fetch(metadata.token_endpoint, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: provider.client.client_id }),
});
check(refreshed.status === 400, `a revoked refresh token: HTTP ${refreshed.status}`);
console.log(`signed in as ${principal} across ${JSON.stringify(steps)}, refreshed, revoked everywhere`);
