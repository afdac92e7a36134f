// What the OAuth sign-in scripts share: the MCP TypeScript SDK's `OAuthClientProvider` as an
// application implements it (a public client on a loopback redirect, keeping what it learns in
// memory), and the person's browser approving every scope on the consent page.

export const REDIRECT = 'http://127.0.0.1:3031/callback';

/** The SDK's provider: what it registers as (`name`), the `state` it sends, what it keeps. */
export class Provider {
  constructor(name, state) {
    this.name = name;
    this.stateValue = state;
    this.saved = [];
    this.authorizationUrl = null;
    // How many times the SDK registered and sent the person to sign in: once each for one
    // sign-in. More means sign-ins raced (each with its own client and code verifier).
    this.registrations = 0;
    this.redirects = 0;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client) {
    this.registrations += 1;
    this.client = client;
  }
  tokens() {
    return this.saved.at(-1);
  }
  saveTokens(tokens) {
    this.saved.push(tokens);
  }
  redirectToAuthorization(url) {
    this.redirects += 1;
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * Opens the authorization `url`, approves every scope on the consent page and returns the URL
 * the person is sent back to; `check(condition, what)` reports a mismatch.
 */
export async function approve(url, check) {
  const opened = await fetch(url, { redirect: 'manual' });
  check(opened.status === 200, `the consent page: HTTP ${opened.status}`);
  const cookie = (opened.headers.getSetCookie() || []).map((c) => c.split(';')[0]).join('; ');
  const html = await opened.text();
  const field = (name) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))[1];
  const action = new URL(html.match(/<form[^>]* action="([^"]+)"/)[1], url);
  const form = new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision: 'approve' });
  for (const [, scope] of html.matchAll(/name="scope" value="([^"]+)"/g)) form.append('scope', scope);
  const decided = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: action.origin },
    body: form,
  });
  check(decided.status === 303, `the consent answer: HTTP ${decided.status} ${await decided.text()}`);
  const back = new URL(decided.headers.get('location'));
  check(back.href.startsWith(REDIRECT), `sent back to ${back}`);
  return back;
}
