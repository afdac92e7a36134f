// Signing in with the server's own authorization server (`--oauth-dev-user`, `--oauth-proxy`):
// the console is a public OAuth client like any MCP host. It registers once per browser
// (dynamic client registration, the id kept in localStorage), sends the person to the
// authorization endpoint with PKCE (S256), and on the way back checks `state` and `iss`, redeems
// the code and keeps the access token in this tab, as an entered credential is kept.

import { bodyText, remember, serverGet } from './http.js';

const CLIENT = 'a2a-console-oauth-client';
const PENDING = 'a2a-console-oauth-pending';

/** Where the authorization server sends the person back: one URL for every page of the console. */
const REDIRECT_URI = `${location.origin}/console`;

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function randomToken() {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function metadata() {
  const answer = await serverGet('/.well-known/oauth-authorization-server');
  if (answer.status !== 200)
    throw new Error(`the authorization server's metadata could not be read: HTTP ${answer.status}`);
  return answer.body;
}

/** The console's client id at this server: registered the first time, then reused. */
async function clientId(server) {
  const stored = JSON.parse(localStorage.getItem(CLIENT) || 'null');
  if (stored?.issuer === server.issuer && stored.redirectUri === REDIRECT_URI) return stored.clientId;
  const response = await fetch(server.registration_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      client_name: 'Agent console',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const answer = JSON.parse(await bodyText(response));
  if (!response.ok)
    throw new Error(`the console could not register: ${answer.error_description || answer.error}`);
  localStorage.setItem(
    CLIENT,
    JSON.stringify({ issuer: server.issuer, redirectUri: REDIRECT_URI, clientId: answer.client_id }),
  );
  return answer.client_id;
}

/** Sends the person to sign in; they come back to this page. */
export async function startSignIn() {
  // A sign-in begun before and never finished may have failed on a client the server no
  // longer knows (an administrator deleted it): register anew.
  if (sessionStorage.getItem(PENDING)) localStorage.removeItem(CLIENT);
  const server = await metadata();
  const client = await clientId(server);
  const verifier = randomToken();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const state = randomToken();
  sessionStorage.setItem(
    PENDING,
    JSON.stringify({
      verifier,
      state,
      client,
      issuer: server.issuer,
      tokenEndpoint: server.token_endpoint,
      returnTo: location.pathname,
    }),
  );
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client,
    redirect_uri: REDIRECT_URI,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    // The server's URL: every agent it serves accepts tokens for it.
    resource: server.issuer,
  });
  location.assign(`${server.authorization_endpoint}?${query}`);
}

/**
 * Completes a sign-in when the page is the authorization server's answer: the token kept,
 * the person back on the page they left. Throws when the answer is refused or forged.
 * Answers `left` when the browser is on its way back to another page of the console.
 */
export async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  if (!params.has('state')) return 'none';
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || 'null');
  sessionStorage.removeItem(PENDING);
  // The code leaves the address bar (and the history) at once.
  const loadedAt = location.pathname;
  history.replaceState(null, '', loadedAt);
  if (!pending || params.get('state') !== pending.state)
    throw new Error('This sign-in was not started here: try again.');
  // RFC 9207: the answer names its issuer, so another server's code is never redeemed here.
  if (params.get('iss') !== pending.issuer)
    throw new Error(`The sign-in answer came from ${params.get('iss')}, not ${pending.issuer}.`);
  if (params.has('error'))
    throw new Error(`Sign-in refused: ${params.get('error_description') || params.get('error')}`);
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') || '',
      redirect_uri: REDIRECT_URI,
      client_id: pending.client,
      code_verifier: pending.verifier,
      resource: pending.issuer,
    }),
  });
  const answer = JSON.parse(await bodyText(response));
  if (!response.ok) {
    if (answer.error === 'invalid_client') localStorage.removeItem(CLIENT);
    throw new Error(`Sign-in failed: ${answer.error_description || answer.error}`);
  }
  remember('bearer', answer.access_token);
  if (pending.returnTo === loadedAt) return 'signed-in';
  location.replace(pending.returnTo);
  return 'left';
}
