// Test-only harness: a real authorization server (oidc-provider, which we did
// not write) extended with an RFC 8693 token-exchange grant, and a downstream
// API that accepts only access tokens minted for its own audience. The Rust
// integration tests of "calling downstream APIs as the caller" start it as
//
//     node tests/auth/harness.mjs
//
// and read two lines from its stdout once both listeners are up:
//
//     authorization server at http://127.0.0.1:PORT1
//     downstream API at http://127.0.0.1:PORT2
//
// Nothing else is ever written to stdout (oidc-provider's notices are sent to
// stderr), so a test can read stdout line by line. SIGTERM or SIGINT closes
// both listeners and exits 0. Everything is in memory and dies with the
// process. See README.md beside this file for every user, client, secret and
// resource.

import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

import * as jose from 'jose';
import Provider, { errors } from 'oidc-provider';

// oidc-provider prints its "you SHOULD change this default" notices with
// console.info, i.e. on stdout. Tests parse stdout, so stdout carries only the
// two ready lines and every notice goes to stderr instead.
console.info = (...args) => console.error(...args);

const HOST = '127.0.0.1';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';

// The MCP server under test: callers' tokens are for this audience.
const MCP = 'https://mcp.test';
const ORDERS = 'https://orders.test';
const SHORT = 'https://short.test';
const SAAS = 'https://saas.test';

// Resource servers (RFC 8707 resource indicators). `via` says how a token for
// the audience can be had, so that e.g. saas-connect cannot ask for an orders
// token at the authorization endpoint and nobody can exchange into saas.test.
const RESOURCES = {
  [MCP]: { scope: 'mcp', accessTokenTTL: 300, via: 'test-endpoint' },
  [ORDERS]: { scope: 'orders:read orders:write', accessTokenTTL: 300, via: 'token-exchange' },
  // Same orders API, but exchanged tokens die after 3 s so a test can watch
  // the MCP server notice the expiry and exchange again.
  [SHORT]: { scope: 'orders:read', accessTokenTTL: 3, via: 'token-exchange' },
  [SAAS]: { scope: 'saas:read', accessTokenTTL: 300, via: 'authorization-code' },
};

// Per-user consent for the exchange: bob never agreed to let anything write
// orders on his behalf, so exchanging for orders:write as bob must fail.
// Every other user has consented to every scope of every resource.
const NOT_CONSENTED = { bob: new Set(['orders:write']) };

// Resource indicators are compared as strings by oidc-provider, and many URL
// libraries (Rust's `url` among them) print https://orders.test as
// https://orders.test/. Both spellings name the same resource; the token's
// `aud` is always the spelling without the slash.
function canonicalResource(indicator) {
  if (typeof indicator !== 'string') return undefined;
  const canonical = indicator.endsWith('/') ? indicator.slice(0, -1) : indicator;
  return Object.hasOwn(RESOURCES, canonical) ? canonical : undefined;
}

function resourceServerInfo(canonical) {
  const { scope, accessTokenTTL } = RESOURCES[canonical];
  return {
    scope,
    audience: canonical,
    accessTokenTTL,
    accessTokenFormat: 'jwt', // signed with the provider's own keys (RS256)
  };
}

// --- keys -----------------------------------------------------------------

// The provider's signing key is made fresh at every start: nothing outside
// this process should trust it except through the jwks_uri. The public half
// verifies subject tokens in the exchange grant without a round trip.
async function providerSigningKeys() {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const publicJwk = await jose.exportJWK(publicKey);
  const kid = await jose.calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg: 'RS256', use: 'sig' };
  return {
    privateJwk: { ...(await jose.exportJWK(privateKey)), ...meta },
    publicJwk: { ...publicJwk, ...meta },
  };
}

// mcp-server-jwt authenticates with private_key_jwt using the checked-in,
// test-only key pair. Deriving the registered public JWK from the very PEM the
// tests sign with means the two can never drift apart.
function mcpServerJwtPublicJwk() {
  const pem = readFileSync(new URL('./keys/mcp-server-jwt.pem', import.meta.url));
  const jwk = createPublicKey(createPrivateKey(pem)).export({ format: 'jwk' });
  return { ...jwk, kid: 'mcp-server-jwt-1', alg: 'ES256', use: 'sig' };
}

// --- listeners --------------------------------------------------------------

// The issuer must contain the port, and the port is only known once the
// socket is bound, so both servers listen first and get their handlers after.
function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve(`http://${HOST}:${server.address().port}`));
  });
}

let asHandler = (_req, res) => { res.statusCode = 503; res.end(); };
let apiHandler = (_req, res) => { res.statusCode = 503; res.end(); };
const asServer = http.createServer((req, res) => asHandler(req, res));
const apiServer = http.createServer((req, res) => apiHandler(req, res));

const issuer = await listen(asServer);
const apiBase = await listen(apiServer);
const signing = await providerSigningKeys();

// --- authorization server -------------------------------------------------

// Extra claims that one particular token must carry (act, tenant). They reach
// the JWT through oidc-provider's extraTokenClaims hook, which is called with
// the token model while it is being saved; keying by the model instance keeps
// the claims with exactly the token they were meant for.
const extraClaims = new WeakMap();

// Successful exchanges per "<sub> <resource>", for GET /test/exchanges.
const exchanges = new Map();

const provider = new Provider(issuer, {
  jwks: { keys: [signing.privateJwk] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },

  // devInteractions accepts any login; the account is just its id.
  async findAccount(_ctx, sub) {
    return { accountId: sub, async claims() { return { sub }; } };
  },

  clients: [
    {
      // The MCP server under test exchanging callers' tokens. oidc-provider
      // accepts client_secret_post as well for a client registered with
      // client_secret_basic (and vice versa).
      client_id: 'mcp-server',
      client_secret: 'mcp-server-secret',
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: [TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: [],
    },
    {
      client_id: 'mcp-server-jwt',
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [mcpServerJwtPublicJwk()] },
      grant_types: [TOKEN_EXCHANGE],
      response_types: [],
      redirect_uris: [],
    },
    {
      // The MCP server as a client of a third-party SaaS (connected accounts).
      // application_type 'native' is what lets the redirect URI's port vary:
      // oidc-provider then matches loopback redirect URIs ignoring the port
      // (RFC 8252 section 7.3), and the MCP server under test listens on a
      // port chosen at run time. The path must still match exactly. A side
      // effect: oidc-provider shows native clients the consent page on every
      // authorization, even when the user consented before.
      client_id: 'saas-connect',
      client_secret: 'saas-connect-secret',
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [
        'http://127.0.0.1/oauth/callback',
        'http://localhost/oauth/callback',
        'http://[::1]/oauth/callback',
      ],
      // Only OpenID Connect scopes may be listed here (oidc-provider refuses
      // others); saas:read is a resource scope, allowed by
      // getResourceServerInfo below.
      scope: 'openid offline_access',
    },
    {
      // The MCP server checking who opens a sign-in link (OpenID Connect): the
      // browser signs in here first, and the ID token's subject must be the MCP
      // caller's. Native, like saas-connect, so the loopback port may vary.
      client_id: 'mcp-login',
      client_secret: 'mcp-login-secret',
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'native',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [
        'http://127.0.0.1/oauth/verified',
        'http://localhost/oauth/verified',
        'http://[::1]/oauth/verified',
      ],
      scope: 'openid',
    },
    {
      // Only POST /test/token uses it, to mint callers' tokens; it can use
      // no grant at the token endpoint.
      client_id: 'host',
      token_endpoint_auth_method: 'none',
      grant_types: [],
      response_types: [],
      redirect_uris: [],
    },
  ],

  responseTypes: ['code'],
  pkce: { required: () => true }, // S256 is the only method oidc-provider 9 supports

  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // saas-connect gets https://saas.test when it names no resource, so a
      // plain OAuth client that knows nothing of RFC 8707 works too.
      async defaultResource(_ctx, client, oneOf) {
        if (oneOf) return oneOf;
        return client.clientId === 'saas-connect' ? SAAS : undefined;
      },
      // Without this, a code or refresh token request that names no resource
      // and whose grant includes `openid` gets an opaque token for userinfo
      // instead of the JWT for the granted resource.
      useGrantedResource: async () => true,
      // Only resources reachable by the authorization-code flow are known
      // here; token exchange resolves its own targets below.
      async getResourceServerInfo(_ctx, indicator, client) {
        const canonical = canonicalResource(indicator);
        if (!canonical || RESOURCES[canonical].via !== 'authorization-code' || client.clientId !== 'saas-connect') {
          throw new errors.InvalidTarget(`unknown resource ${indicator} for client ${client.clientId}`);
        }
        return resourceServerInfo(canonical);
      },
    },
  },

  extraTokenClaims: async (_ctx, token) => extraClaims.get(token),

  // A connected account keeps working after the browser session that
  // authorized it is gone, and it gets a refresh token whether or not
  // offline_access survived: oidc-provider drops offline_access from a
  // request without prompt=consent (OpenID Connect Core 11), which real
  // third-party services do not require.
  expiresWithSession: async () => false,
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  // Every refresh returns a new refresh token and consumes the old one.
  // oidc-provider's default rotates confidential clients' tokens only after
  // 70% of their lifetime.
  rotateRefreshToken: true,

  ttl: {
    AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300,
    AuthorizationCode: 60,
    IdToken: 300,
    RefreshToken: 24 * 60 * 60,
    Interaction: 10 * 60,
    Session: 60 * 60,
    Grant: 24 * 60 * 60,
  },
});

// The built-in pages (devInteractions' login and consent, error pages) load a
// web font from fonts.googleapis.com. A browser test must only talk to
// loopback, and offline the page's load event would wait on that request, so
// the import is cut from every HTML page the provider serves. provider.use
// puts this ahead of oidc-provider's own routes, so it sees their output.
provider.use(async (ctx, next) => {
  await next();
  if (typeof ctx.body === 'string' && ctx.response.is('html')) {
    ctx.body = ctx.body.replace(/@import url\(https:\/\/fonts\.googleapis\.com[^)]*\);?/g, '');
  }
});

// --- token exchange (RFC 8693) ----------------------------------------------

// Keys to verify subject tokens with: the public half of the provider's own
// signing key, i.e. exactly what its jwks_uri serves.
const providerPublicKeys = jose.createLocalJWKSet({ keys: [signing.publicJwk] });

// oidc-provider's InvalidGrant always answers "grant request is invalid" and
// keeps the reason in an unexposed detail; tests want to see the reason.
const invalidGrant = (description) => new errors.CustomOIDCProviderError('invalid_grant', description);

// A claim value for a message: no quotes, so it also fits in a header.
const listed = (value) => (value === undefined ? 'nothing' : [value].flat().join(' '));

// Says in words why jose refused a token, for error_description. The first
// word is the token's name ("subject_token", "the token").
function whyRefused(err, what, expectedAudiences) {
  switch (err.code) {
    case 'ERR_JWT_EXPIRED':
      return `${what} is expired`;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (err.claim === 'aud') {
        return `${what} audience is ${listed(err.payload?.aud)}, expected ${expectedAudiences.join(' or ')}`;
      }
      if (err.claim === 'iss') {
        return `${what} issuer is ${listed(err.payload?.iss)}, expected ${issuer}`;
      }
      if (err.claim === 'typ') {
        return `${what} is not an access token (its typ header is not at+jwt)`;
      }
      return `${what} has an invalid or missing "${err.claim}" claim`;
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return `${what} was not signed by ${issuer}`;
    default:
      return `${what} is not a JWT access token issued by ${issuer}`;
  }
}

async function verifySubjectToken(value) {
  try {
    const { payload } = await jose.jwtVerify(value, providerPublicKeys, {
      issuer,
      audience: MCP,
      typ: 'at+jwt', // refuse ID tokens and other JWTs signed with the same key
      algorithms: ['RS256'],
      requiredClaims: ['sub', 'exp'],
      clockTolerance: 0, // tests mint 1-2 s tokens and expect them dead on time
    });
    return payload;
  } catch (err) {
    throw invalidGrant(whyRefused(err, 'subject_token', [MCP]));
  }
}

// The target service: `resource` (an absolute URI, RFC 8707) or `audience`
// (a logical name; here the same URIs). Naming two different ones is refused.
function exchangeTarget({ resource, audience }) {
  const named = [resource, audience].filter((v) => v !== undefined);
  if (named.length === 0) {
    throw new errors.InvalidTarget(`resource or audience is required: ${ORDERS} or ${SHORT}`);
  }
  const targets = new Set(named.map((v) => canonicalResource(v) ?? v));
  if (targets.size > 1) {
    throw new errors.InvalidTarget('resource and audience name different services');
  }
  const [target] = targets;
  if (!Object.hasOwn(RESOURCES, target) || RESOURCES[target].via !== 'token-exchange') {
    throw new errors.InvalidTarget(`tokens for ${named[0]} cannot be had by token exchange: use ${ORDERS} or ${SHORT}`);
  }
  return target;
}

function exchangeScopes(requested, target, sub) {
  const offered = new Set(RESOURCES[target].scope.split(' '));
  const scopes = requested ? [...new Set(requested.split(' ').filter(Boolean))] : ['orders:read'];
  for (const scope of scopes) {
    if (!offered.has(scope)) {
      throw new errors.InvalidScope(`${scope} is not a scope of ${target} (it offers ${[...offered].join(' ')})`, scope);
    }
    if (NOT_CONSENTED[sub]?.has(scope)) {
      throw new errors.InvalidScope(`the user has not consented to ${scope}`, scope);
    }
  }
  return scopes;
}

// Called by oidc-provider's token endpoint after it has authenticated the
// client (client_secret_basic/post or private_key_jwt) and checked that the
// client may use this grant type.
async function tokenExchangeGrant(ctx) {
  const { params, client } = ctx.oidc;

  for (const name of ['subject_token', 'subject_token_type']) {
    if (!params[name]) throw new errors.InvalidRequest(`missing required parameter '${name}'`);
  }
  if (params.actor_token !== undefined || params.actor_token_type !== undefined) {
    throw new errors.InvalidRequest('actor_token is not supported: the authenticated client is the actor');
  }
  if (params.requested_token_type !== undefined
      && ![ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE].includes(params.requested_token_type)) {
    throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
    throw invalidGrant(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }

  const subject = await verifySubjectToken(params.subject_token);
  const target = exchangeTarget(params);
  const scopes = exchangeScopes(params.scope, target, subject.sub);

  // oidc-provider's own AccessToken model, so the token is signed, stored and
  // shaped (iss, sub, aud, client_id, scope, jti, iat, exp, typ at+jwt)
  // exactly like the tokens its built-in grants issue.
  const token = new provider.AccessToken({
    accountId: subject.sub,
    client,
    gty: TOKEN_EXCHANGE,
    scope: scopes.join(' '),
    resourceServer: new provider.ResourceServer(target, resourceServerInfo(target)),
  });
  extraClaims.set(token, {
    act: { sub: client.clientId }, // RFC 8693 section 4.1: who acts for the subject
    ...(subject.tenant !== undefined ? { tenant: subject.tenant } : {}),
  });
  ctx.oidc.entity('AccessToken', token);
  const accessToken = await token.save();

  const key = `${subject.sub} ${target}`;
  exchanges.set(key, (exchanges.get(key) ?? 0) + 1);

  ctx.body = {
    access_token: accessToken,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    expires_in: token.expiration,
    scope: token.scope,
  };
}

// Registered parameters are the only ones oidc-provider passes through to the
// handler; actor_token is registered only to refuse it out loud.
provider.registerGrantType(TOKEN_EXCHANGE, tokenExchangeGrant, [
  'subject_token',
  'subject_token_type',
  'resource',
  'audience',
  'scope',
  'requested_token_type',
  'actor_token',
  'actor_token_type',
]);

// --- small HTTP helpers -------------------------------------------------------

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

class HttpError extends Error {
  constructor(status, body, headers = {}) {
    super(body.error_description ?? body.error);
    Object.assign(this, { status, body, headers });
  }
}

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 1 << 20) throw new HttpError(413, { error: 'body too large' });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, { error: 'invalid_request', error_description: 'body is not JSON' });
  }
}

// Runs an async route; any HttpError becomes its response, anything else a 500
// that is also logged, so a harness bug is visible in the test's stderr.
function route(fn) {
  return (req, res) => {
    fn(req, res).catch((err) => {
      if (err instanceof HttpError) {
        sendJson(res, err.status, err.body, err.headers);
      } else {
        console.error('harness error:', err);
        if (!res.headersSent) sendJson(res, 500, { error: 'server_error', error_description: String(err) });
        else res.destroy();
      }
    });
  };
}

// --- test control endpoints of the authorization server (test-only) ---------

const hostClient = await provider.Client.find('host');

async function mintCallerToken(req, res) {
  const body = await readJson(req);
  const { sub, scope = 'mcp', ttl = 300, tenant } = body;
  if (typeof sub !== 'string' || !sub) {
    throw new HttpError(400, { error: 'invalid_request', error_description: 'sub (a non-empty string) is required' });
  }
  if (typeof scope !== 'string') {
    throw new HttpError(400, { error: 'invalid_request', error_description: 'scope must be a string' });
  }
  if (!Number.isSafeInteger(ttl) || ttl <= 0) {
    throw new HttpError(400, { error: 'invalid_request', error_description: 'ttl must be a positive integer (seconds)' });
  }
  if (tenant !== undefined && typeof tenant !== 'string') {
    throw new HttpError(400, { error: 'invalid_request', error_description: 'tenant must be a string' });
  }

  // The same model and keys as every other access token of this issuer, so
  // the MCP server under test verifies it through the issuer's JWKS like a
  // real caller's token.
  const token = new provider.AccessToken({
    accountId: sub,
    client: hostClient,
    scope: scope || undefined,
    expiresIn: ttl,
    resourceServer: new provider.ResourceServer(MCP, resourceServerInfo(MCP)),
  });
  if (tenant !== undefined) extraClaims.set(token, { tenant });
  sendJson(res, 200, { access_token: await token.save(), token_type: 'Bearer', expires_in: ttl });
}

const providerCallback = provider.callback();

asHandler = (req, res) => {
  const { pathname } = new URL(req.url, issuer);
  if (!pathname.startsWith('/test/')) return providerCallback(req, res);

  if (pathname === '/test/token' && req.method === 'POST') return route(mintCallerToken)(req, res);
  if (pathname === '/test/exchanges' && req.method === 'GET') {
    return sendJson(res, 200, Object.fromEntries(exchanges));
  }
  return sendJson(res, 404, { error: 'not_found' });
};

// --- downstream API ---------------------------------------------------------

// Like a real resource server, the API knows the issuer only by URL and gets
// the keys from the jwks_uri its discovery document advertises.
const discovery = await (await fetch(new URL('/.well-known/openid-configuration', issuer))).json();
const issuerKeys = jose.createRemoteJWKSet(new URL(discovery.jwks_uri));

// Every Authorization header the API received, in order, with the audience
// the token claimed (unverified) so /test/seen?audience= can filter.
const seen = [];

function claimedAudience(authorization) {
  try {
    const aud = jose.decodeJwt(authorization.replace(/^Bearer\s+/i, '')).aud;
    return Array.isArray(aud) ? aud : [aud];
  } catch {
    return [];
  }
}

const quoted = (s) => s.replace(/["\\]/g, "'");

function unauthorized(description) {
  return new HttpError(401, { error: 'invalid_token', error_description: description }, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${quoted(description)}"`,
  });
}

// Verifies the bearer token and that it was minted for one of `audiences`.
async function authenticate(req, audiences) {
  const header = req.headers.authorization;
  const match = header && /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) {
    // RFC 6750 section 3.1: no error code when the request had no token.
    throw new HttpError(401, { error: 'unauthorized', error_description: 'a Bearer access token is required' }, {
      'www-authenticate': 'Bearer',
    });
  }
  try {
    const { payload } = await jose.jwtVerify(match[1], issuerKeys, {
      issuer,
      audience: audiences,
      typ: 'at+jwt',
      algorithms: ['RS256'],
      requiredClaims: ['sub', 'exp'],
      clockTolerance: 0, // the 3 s tokens of short.test must die on time
    });
    return payload;
  } catch (err) {
    if (err.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && err.claim === 'aud') {
      throw unauthorized(`wrong audience: the token is for ${listed(err.payload?.aud)}, this API accepts only ${audiences.join(' or ')}`);
    }
    throw unauthorized(whyRefused(err, 'the token', audiences));
  }
}

function requireScope(payload, scope) {
  if (!String(payload.scope ?? '').split(' ').includes(scope)) {
    throw new HttpError(403, {
      error: 'insufficient_scope',
      error_description: `${scope} is required`,
      scope,
    }, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` });
  }
}

// Orders per owner, made on first sight so every user has a couple.
const orders = new Map();
function ordersOf(sub) {
  if (!orders.has(sub)) {
    orders.set(sub, [
      { id: 1, owner: sub, item: 'coffee beans' },
      { id: 2, owner: sub, item: 'paper filters' },
    ]);
  }
  return orders.get(sub);
}

const ORDERS_AUDIENCES = [ORDERS, SHORT];

const api = {
  'GET /orders': async (req, res) => {
    const token = await authenticate(req, ORDERS_AUDIENCES);
    requireScope(token, 'orders:read');
    sendJson(res, 200, ordersOf(token.sub));
  },
  'POST /orders': async (req, res) => {
    const token = await authenticate(req, ORDERS_AUDIENCES);
    requireScope(token, 'orders:write');
    const { item } = await readJson(req);
    if (typeof item !== 'string' || !item) {
      throw new HttpError(400, { error: 'invalid_request', error_description: 'item (a non-empty string) is required' });
    }
    const list = ordersOf(token.sub);
    const order = { id: list.length + 1, owner: token.sub, item };
    list.push(order);
    sendJson(res, 201, order);
  },
  'GET /orders/whoami': async (req, res) => {
    const {
      sub, aud, scope, act, jti, exp, tenant,
    } = await authenticate(req, ORDERS_AUDIENCES);
    sendJson(res, 200, {
      sub, aud, scope, act, jti, exp, ...(tenant !== undefined ? { tenant } : {}),
    });
  },
  'GET /saas/me': async (req, res) => {
    const {
      sub, aud, scope, jti,
    } = await authenticate(req, [SAAS]);
    sendJson(res, 200, {
      sub, aud, scope, jti,
    });
  },
  'GET /openapi.json': async (_req, res) => sendJson(res, 200, openApi()),
  'GET /test/seen': async (req, res) => {
    const audience = new URL(req.url, apiBase).searchParams.get('audience');
    sendJson(res, 200, seen
      .filter((entry) => audience === null || entry.audiences.includes(audience))
      .map((entry) => entry.authorization));
  },
};

apiHandler = (req, res) => {
  const { pathname } = new URL(req.url, apiBase);
  if (req.headers.authorization !== undefined && !pathname.startsWith('/test/')) {
    seen.push({ authorization: req.headers.authorization, audiences: claimedAudience(req.headers.authorization) });
  }
  const handler = api[`${req.method} ${pathname}`];
  if (handler) return route(handler)(req, res);
  const known = Object.keys(api).some((k) => k.endsWith(` ${pathname}`));
  return sendJson(res, known ? 405 : 404, { error: known ? 'method_not_allowed' : 'not_found' });
};

// The orders API described for `mcp openapi`: the generated server calls it
// with tokens it got by exchanging its callers' tokens at the token endpoint.
function openApi() {
  const orderSchema = { $ref: '#/components/schemas/Order' };
  const problem = (description) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  return {
    openapi: '3.0.3',
    info: {
      title: 'Orders API (test harness)',
      version: '1.0.0',
      description: `Accepts only access tokens for ${ORDERS} (or ${SHORT}), obtained by RFC 8693 token exchange at ${discovery.token_endpoint}.`,
    },
    servers: [{ url: apiBase }],
    paths: {
      '/orders': {
        get: {
          operationId: 'listOrders',
          summary: "List the caller's orders",
          security: [{ orders_oauth: ['orders:read'] }],
          responses: {
            200: {
              description: "The caller's orders",
              content: { 'application/json': { schema: { type: 'array', items: orderSchema } } },
            },
            401: problem('Missing, invalid or expired token, or a token for another audience'),
            403: problem('The token lacks orders:read'),
          },
        },
        post: {
          operationId: 'createOrder',
          summary: 'Place an order for the caller',
          security: [{ orders_oauth: ['orders:write'] }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewOrder' } } },
          },
          responses: {
            201: { description: 'The order placed', content: { 'application/json': { schema: orderSchema } } },
            400: problem('No item'),
            401: problem('Missing, invalid or expired token, or a token for another audience'),
            403: problem('The token lacks orders:write'),
          },
        },
      },
      '/orders/whoami': {
        get: {
          operationId: 'whoAmI',
          summary: 'Who the API thinks is calling, from the access token',
          security: [{ orders_oauth: [] }],
          responses: {
            200: {
              description: 'Claims of the access token',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/WhoAmI' } } },
            },
            401: problem('Missing, invalid or expired token, or a token for another audience'),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        orders_oauth: {
          type: 'oauth2',
          description: `Tokens for ${ORDERS}; an MCP server gets them by token exchange (grant_type ${TOKEN_EXCHANGE}, resource ${ORDERS}).`,
          flows: {
            authorizationCode: {
              authorizationUrl: discovery.authorization_endpoint,
              tokenUrl: discovery.token_endpoint,
              scopes: {
                'orders:read': 'Read your orders',
                'orders:write': 'Place orders for you',
              },
            },
          },
        },
      },
      schemas: {
        Order: {
          type: 'object',
          required: ['id', 'owner', 'item'],
          properties: {
            id: { type: 'integer' },
            owner: { type: 'string', description: 'sub of the user the order belongs to' },
            item: { type: 'string' },
          },
        },
        NewOrder: {
          type: 'object',
          required: ['item'],
          properties: { item: { type: 'string', description: 'What to order' } },
        },
        WhoAmI: {
          type: 'object',
          properties: {
            sub: { type: 'string' },
            aud: { type: 'string' },
            scope: { type: 'string' },
            act: { type: 'object', properties: { sub: { type: 'string' } } },
            jti: { type: 'string' },
            exp: { type: 'integer' },
            tenant: { type: 'string' },
          },
        },
        Error: {
          type: 'object',
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
      },
    },
  };
}

// --- ready, and shutdown -------------------------------------------------------

function shutdown() {
  let open = 2;
  const done = () => { open -= 1; if (open === 0) process.exit(0); };
  for (const server of [asServer, apiServer]) {
    server.close(done);
    server.closeAllConnections(); // keep-alive sockets would hold close() open
  }
  setTimeout(() => process.exit(0), 2000).unref();
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

process.stdout.write(`authorization server at ${issuer}\ndownstream API at ${apiBase}\n`);
