// Starts the MCP TypeScript SDK's example server with its demo OAuth
// authorization server (examples/server/simpleStreamableHttp.js --oauth),
// after teaching the demo provider what it leaves out: refresh tokens.
// The demo issues one-hour access tokens and refuses the refresh_token
// grant ("Not implemented for example demo"); a client that refreshes
// could not be tested against it. Here a code exchange also returns a
// refresh token, and a refresh issues a new access token, rotates the
// refresh token and forgets the access token it replaces, printing
// "REFRESHED <n>" so the test sees the server's side.
//
// usage: node mcp-demo-oauth.mjs <dir of the SDK's dist/esm/examples/server> --oauth
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const dir = process.argv[2];
const { DemoInMemoryAuthProvider } = await import(pathToFileURL(path.join(dir, 'demoInMemoryOAuthProvider.js')).href);

const refreshTokens = new Map(); // refresh token → { clientId, scopes, resource, access }
let refreshes = 0;

const issue = (provider, clientId, scopes, resource) => {
  const access = randomUUID();
  provider.tokens.set(access, { token: access, clientId, scopes, expiresAt: Date.now() + 3600000, resource, type: 'access' });
  const refresh = randomUUID();
  refreshTokens.set(refresh, { clientId, scopes, resource, access });
  return { access, refresh };
};

const exchangeCode = DemoInMemoryAuthProvider.prototype.exchangeAuthorizationCode;
DemoInMemoryAuthProvider.prototype.exchangeAuthorizationCode = async function (client, code, verifier, redirectUri, resource) {
  const tokens = await exchangeCode.call(this, client, code, verifier, redirectUri, resource);
  const refresh = randomUUID();
  refreshTokens.set(refresh, { clientId: client.client_id, scopes: tokens.scope ? tokens.scope.split(' ') : [], resource, access: tokens.access_token });
  return { ...tokens, refresh_token: refresh };
};

DemoInMemoryAuthProvider.prototype.exchangeRefreshToken = async function (client, refreshToken, scopes, resource) {
  const grant = refreshTokens.get(refreshToken);
  if (!grant || grant.clientId !== client.client_id) {
    throw new Error('unknown refresh token');
  }
  refreshTokens.delete(refreshToken);
  this.tokens.delete(grant.access);
  const { access, refresh } = issue(this, client.client_id, scopes ?? grant.scopes, resource ?? grant.resource);
  refreshes++;
  console.log(`REFRESHED ${refreshes} resource=${resource ?? ''}`);
  return { access_token: access, token_type: 'bearer', expires_in: 3600, refresh_token: refresh, scope: (scopes ?? grant.scopes).join(' ') };
};

process.argv.splice(2, 1); // the example reads its own flags (--oauth)
await import(pathToFileURL(path.join(dir, 'simpleStreamableHttp.js')).href);
