// An OpenID Connect provider on loopback for the proxy-mode tests: the npm `oidc-provider`
// package (A2A_TEST_OIDC_PROVIDER names its directory) with its development sign-in pages,
// one confidential client, and accounts named by whatever login is typed. An account whose
// login starts with `fin` is in the groups `finance` and `staff`, any other in `staff`; the
// account `mallory` has an email at evil.test, any other at example.test (the `groups` scope
// asks for the groups, which come, as the core spec says, from userinfo).
//
// Usage: node provider.mjs CLIENT_ID CLIENT_SECRET REDIRECT_URI
// Prints the issuer URL once listening; stops when its standard input closes.

import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientId, clientSecret, redirectUri] = process.argv.slice(2);
const modulePath = path.join(process.env.A2A_TEST_OIDC_PROVIDER, 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(modulePath).href);

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    claims: {
      openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'], groups: ['groups'],
    },
    findAccount: (ctx, id) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        name: `${id} (upstream)`,
        email: id === 'mallory' ? 'mallory@evil.test' : `${id}@example.test`,
        // eve's provider sends the claim as the string "false" (as some providers send
        // booleans), nova's none at all: neither address is vouched for.
        ...(id === 'nova' ? {} : { email_verified: id === 'eve' ? 'false' : true }),
        groups: id.startsWith('fin') ? ['finance', 'staff'] : ['staff'],
      }),
    }),
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', provider.callback());
  console.log(issuer);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
