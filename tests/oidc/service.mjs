// An OAuth authorization server on loopback for a service that signs in as itself: the npm
// `oidc-provider` package (A2A_TEST_OIDC_PROVIDER names its directory) with the client
// credentials grant and resource indicators (RFC 8707) on, one confidential client, and JWT
// access tokens (RS256, its keys at /jwks) for the one resource server it knows, whose scope
// is `agents:call`, valid for two minutes.
//
// Usage: node service.mjs CLIENT_ID CLIENT_SECRET RESOURCE
// Prints the issuer URL once listening; stops when its standard input closes.

import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientId, clientSecret, resource] = process.argv.slice(2);
const modulePath = path.join(process.env.A2A_TEST_OIDC_PROVIDER, 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(modulePath).href);

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    scopes: ['agents:call'],
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: 'agents:call',
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    features: {
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return {
            scope: 'agents:call',
            audience: resource,
            accessTokenTTL: 120,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
  });
  server.on('request', provider.callback());
  console.log(issuer);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
