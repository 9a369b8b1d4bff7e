// Smoke test of the harness, with nothing but fetch: `node tests/auth/smoke.mjs`.
// Starts harness.mjs as a child process, checks every behaviour the Rust
// integration tests rely on, prints one ok/FAIL line per check and a closing
// "N passed, N failed" line, and exits non-zero if anything failed.

import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { strict as assert } from 'node:assert';

import * as jose from 'jose';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

// --- the harness as a child process -------------------------------------------

const child = spawn(process.execPath, [new URL('./harness.mjs', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
let childStderr = '';
child.stderr.on('data', (d) => { childStderr += d; });
const childExit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

const stdoutLines = [];
const { issuer, api } = await new Promise((resolve, reject) => {
  const found = {};
  const timer = setTimeout(() => reject(new Error(`harness not ready in 20 s; stderr:\n${childStderr}`)), 20_000);
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdoutLines.push(line);
    let m;
    if ((m = /^authorization server at (http:\/\/127\.0\.0\.1:\d+)$/.exec(line))) found.issuer = m[1];
    if ((m = /^downstream API at (http:\/\/127\.0\.0\.1:\d+)$/.exec(line))) found.api = m[1];
    if (found.issuer && found.api) { clearTimeout(timer); resolve(found); }
  });
  child.once('exit', (code) => reject(new Error(`harness exited (${code}) before ready; stderr:\n${childStderr}`)));
});

// --- a tiny test runner ---------------------------------------------------------

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name}`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL - ${name}: ${err.stack ?? err}`);
  }
}

// --- helpers ----------------------------------------------------------------------

const form = (params) => new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined));
const basic = (id, secret) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const claims = (jwt) => jose.decodeJwt(jwt);

async function json(res) {
  const text = await res.text();
  try { return JSON.parse(text); } catch { return { non_json: text }; }
}

async function mint(body) {
  const res = await fetch(`${issuer}/test/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, `mint: ${res.status}`);
  return (await json(res)).access_token;
}

// POSTs to the token endpoint; `auth` is { basic: [id, secret] }, { post:
// [id, secret] } or { assertion: jwt }.
async function tokenRequest(params, auth) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = form(params);
  if (auth.basic) headers.authorization = basic(...auth.basic);
  if (auth.post) { body.set('client_id', auth.post[0]); body.set('client_secret', auth.post[1]); }
  if (auth.assertion) { body.set('client_assertion_type', ASSERTION_TYPE); body.set('client_assertion', auth.assertion); }
  const res = await fetch(`${issuer}/token`, { method: 'POST', headers, body });
  return { status: res.status, body: await json(res) };
}

const mcpServer = { basic: ['mcp-server', 'mcp-server-secret'] };

function exchange(subjectToken, extra = {}, auth = mcpServer) {
  return tokenRequest({
    grant_type: TOKEN_EXCHANGE,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    resource: 'https://orders.test',
    ...extra,
  }, auth);
}

const jwtClientKey = createPrivateKey(readFileSync(new URL('./keys/mcp-server-jwt.pem', import.meta.url)));
function clientAssertion(aud, jti = randomBytes(16).toString('base64url')) {
  return new jose.SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'mcp-server-jwt-1' })
    .setIssuer('mcp-server-jwt')
    .setSubject('mcp-server-jwt')
    .setAudience(aud)
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(jwtClientKey);
}

const get = (path, token) => fetch(`${api}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

function expectError(result, status, error, descriptionPattern) {
  assert.equal(result.status, status, JSON.stringify(result.body));
  assert.equal(result.body.error, error, JSON.stringify(result.body));
  if (descriptionPattern) assert.match(result.body.error_description ?? '', descriptionPattern);
}

// A browserless user agent for the authorization-code flow: follows redirects
// by hand, keeps cookies per path, fills devInteractions' two forms.
class Browser {
  cookies = new Map(); // "name path" -> { name, value, path }

  cookieHeader(url) {
    const { pathname } = new URL(url);
    return [...this.cookies.values()]
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`).join('; ');
  }

  store(res, url) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attr = Object.fromEntries(attrs.map((a) => {
        const i = a.indexOf('=');
        return i === -1 ? [a.toLowerCase(), true] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)];
      }));
      const path = attr.path ?? new URL(url).pathname.replace(/\/[^/]*$/, '') ?? '/';
      const expired = attr.expires && Date.parse(attr.expires) <= Date.now();
      if (expired || value === '') this.cookies.delete(`${name} ${path}`);
      else this.cookies.set(`${name} ${path}`, { name, value, path });
    }
  }

  async request(url, init = {}) {
    const headers = { ...init.headers };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.store(res, url);
    return res;
  }

  // Runs an authorization request to its end: returns the URL the user agent
  // was finally sent to on the client (the redirect_uri with code or error),
  // or the last response if the authorization server stopped on a page.
  async authorize(params, { login = 'alice', callbackPrefix }) {
    let url = `${issuer}/auth?${form(params)}`;
    let init = {};
    const pages = [];
    for (let step = 0; step < 20; step += 1) {
      const res = await this.request(url, init);
      init = {};
      if (res.status >= 300 && res.status < 400) {
        const next = new URL(res.headers.get('location'), url).href;
        if (next.startsWith(callbackPrefix)) return { callback: new URL(next), pages };
        url = next;
        continue;
      }
      const html = await res.text();
      // A browser test must stay on loopback: no page may pull in a web font.
      if (/fonts\.googleapis\.com/.test(html)) throw new Error(`${url} loads a font from outside loopback`);
      if (res.status !== 200) return { status: res.status, html, pages };
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (!action || !prompt) return { status: res.status, html, pages };
      pages.push(prompt);
      // Login: any login and any password; consent: just the hidden prompt.
      const fields = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
      url = new URL(action.replace(/&#x2F;/g, '/').replace(/&amp;/g, '&'), url).href;
      init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form(fields) };
    }
    throw new Error('too many redirects');
  }
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const saasConnect = { basic: ['saas-connect', 'saas-connect-secret'] };

// --- checks ---------------------------------------------------------------------

await check('stdout carries exactly the two ready lines', async () => {
  assert.deepEqual(stdoutLines, [`authorization server at ${issuer}`, `downstream API at ${api}`]);
});

let discovery;
await check('discovery advertises the issuer, jwks_uri and the token-exchange grant', async () => {
  discovery = await json(await fetch(`${issuer}/.well-known/openid-configuration`));
  assert.equal(discovery.issuer, issuer);
  assert.equal(discovery.jwks_uri, `${issuer}/jwks`);
  assert.equal(discovery.token_endpoint, `${issuer}/token`);
  assert.ok(discovery.grant_types_supported.includes(TOKEN_EXCHANGE));
  const jwks = await json(await fetch(discovery.jwks_uri));
  assert.ok(jwks.keys.length >= 1 && jwks.keys.every((k) => !k.d), 'public keys only');
});
const issuerKeys = jose.createRemoteJWKSet(new URL(`${issuer}/jwks`));

let aliceToken;
await check('POST /test/token mints a caller token for https://mcp.test that verifies with the JWKS', async () => {
  aliceToken = await mint({ sub: 'alice' });
  const { payload, protectedHeader } = await jose.jwtVerify(aliceToken, issuerKeys, {
    issuer, audience: 'https://mcp.test', typ: 'at+jwt',
  });
  assert.equal(protectedHeader.alg, 'RS256');
  assert.equal(payload.sub, 'alice');
  assert.equal(payload.scope, 'mcp');
  assert.equal(payload.client_id, 'host');
  assert.equal(payload.exp - payload.iat, 300);
  assert.equal(payload.tenant, undefined);
});

await check('POST /test/token takes scope, ttl and tenant', async () => {
  const c = claims(await mint({ sub: 'carol', scope: 'mcp extra', ttl: 42, tenant: 'acme' }));
  assert.equal(c.scope, 'mcp extra');
  assert.equal(c.exp - c.iat, 42);
  assert.equal(c.tenant, 'acme');
  const bad = await fetch(`${issuer}/test/token`, { method: 'POST', body: '{}' });
  assert.equal(bad.status, 400);
});

let ordersToken;
await check('exchange as mcp-server (client_secret_basic), scope omitted -> orders:read', async () => {
  const r = await exchange(aliceToken);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.issued_token_type, ACCESS_TOKEN_TYPE);
  assert.equal(r.body.token_type, 'Bearer');
  assert.equal(r.body.expires_in, 300);
  assert.equal(r.body.scope, 'orders:read');
  ordersToken = r.body.access_token;
  const { payload } = await jose.jwtVerify(ordersToken, issuerKeys, { issuer, audience: 'https://orders.test', typ: 'at+jwt' });
  assert.equal(payload.sub, 'alice');
  assert.equal(payload.client_id, 'mcp-server');
  assert.deepEqual(payload.act, { sub: 'mcp-server' });
  assert.equal(payload.scope, 'orders:read');
  assert.equal(payload.exp - payload.iat, 300);
  assert.ok(payload.jti);
});

await check('exchange as mcp-server with client_secret_post too', async () => {
  const r = await exchange(aliceToken, { scope: 'orders:read orders:write' }, { post: ['mcp-server', 'mcp-server-secret'] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.scope, 'orders:read orders:write');
});

await check('exchange with a wrong client secret -> invalid_client', async () => {
  expectError(await exchange(aliceToken, {}, { basic: ['mcp-server', 'nope'] }), 401, 'invalid_client');
});

let writeToken;
await check('exchange as mcp-server-jwt (private_key_jwt, aud = issuer)', async () => {
  const r = await exchange(aliceToken, { scope: 'orders:read orders:write' }, { assertion: await clientAssertion(issuer) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  writeToken = r.body.access_token;
  const c = claims(writeToken);
  assert.equal(c.client_id, 'mcp-server-jwt');
  assert.deepEqual(c.act, { sub: 'mcp-server-jwt' });
  assert.equal(c.aud, 'https://orders.test');
});

await check('private_key_jwt: aud = token endpoint also accepted; other aud, reused jti refused', async () => {
  const ok = await exchange(aliceToken, {}, { assertion: await clientAssertion(`${issuer}/token`) });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  expectError(await exchange(aliceToken, {}, { assertion: await clientAssertion('https://mcp.test') }), 401, 'invalid_client');
  // The issuer with a trailing slash is another string, so another audience.
  expectError(await exchange(aliceToken, {}, { assertion: await clientAssertion(`${issuer}/`) }), 401, 'invalid_client');
  const once = await clientAssertion(issuer);
  assert.equal((await exchange(aliceToken, {}, { assertion: once })).status, 200);
  expectError(await exchange(aliceToken, {}, { assertion: once }), 401, 'invalid_client');
});

await check('GET /orders/whoami returns the caller as sub, aud orders.test, act', async () => {
  const res = await get('/orders/whoami', ordersToken);
  assert.equal(res.status, 200);
  const who = await json(res);
  assert.equal(who.sub, 'alice');
  assert.equal(who.aud, 'https://orders.test');
  assert.equal(who.scope, 'orders:read');
  assert.deepEqual(who.act, { sub: 'mcp-server' });
  assert.equal(who.jti, claims(ordersToken).jti);
  assert.equal(who.exp, claims(ordersToken).exp);
});

await check('GET /orders lists the caller\'s orders; POST /orders needs orders:write', async () => {
  const list = await json(await get('/orders', ordersToken));
  assert.ok(Array.isArray(list) && list.length >= 1 && list.every((o) => o.owner === 'alice'), JSON.stringify(list));
  const denied = await fetch(`${api}/orders`, {
    method: 'POST', headers: { authorization: `Bearer ${ordersToken}`, 'content-type': 'application/json' }, body: '{"item":"tea"}',
  });
  assert.equal(denied.status, 403);
  assert.match(denied.headers.get('www-authenticate'), /error="insufficient_scope"/);
  assert.equal((await json(denied)).error, 'insufficient_scope');
  const created = await fetch(`${api}/orders`, {
    method: 'POST', headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'application/json' }, body: '{"item":"tea"}',
  });
  assert.equal(created.status, 201);
  const order = await json(created);
  assert.equal(order.owner, 'alice');
  assert.equal(order.item, 'tea');
  assert.ok((await json(await get('/orders', ordersToken))).some((o) => o.id === order.id));
});

await check('the caller\'s own token is refused by /orders (401 invalid_token, wrong audience)', async () => {
  const res = await get('/orders', aliceToken);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate'), /^Bearer error="invalid_token"/);
  const body = await json(res);
  assert.equal(body.error, 'invalid_token');
  assert.match(body.error_description, /audience/);
  assert.equal((await get('/orders/whoami', aliceToken)).status, 401);
});

await check('no token -> 401 with a bare Bearer challenge', async () => {
  const res = await get('/orders');
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
});

await check('bob asking orders:write -> invalid_scope (not consented); orders:read is fine', async () => {
  const bob = await mint({ sub: 'bob' });
  const r = await exchange(bob, { scope: 'orders:write' });
  expectError(r, 400, 'invalid_scope', /the user has not consented to orders:write/);
  assert.equal((await exchange(bob, { scope: 'orders:read' })).status, 200);
});

await check('a scope the resource does not have -> invalid_scope', async () => {
  expectError(await exchange(aliceToken, { scope: 'saas:read' }), 400, 'invalid_scope');
  expectError(await exchange(aliceToken, { resource: 'https://short.test', scope: 'orders:write' }), 400, 'invalid_scope');
});

await check('bad subject tokens -> invalid_grant with a reason', async () => {
  expectError(await exchange('not-a-jwt'), 400, 'invalid_grant', /subject_token/);
  // A token of this issuer but for the orders API, not for the MCP server.
  expectError(await exchange(ordersToken), 400, 'invalid_grant', /audience/);
  // Right claims, wrong key.
  const { privateKey } = await jose.generateKeyPair('RS256');
  const forged = await new jose.SignJWT({ scope: 'mcp', client_id: 'host' })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'x' })
    .setIssuer(issuer).setSubject('alice').setAudience('https://mcp.test')
    .setIssuedAt().setExpirationTime('5m').setJti('forged')
    .sign(privateKey);
  expectError(await exchange(forged), 400, 'invalid_grant', /not signed by/);
  expectError(await exchange(aliceToken, { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }), 400, 'invalid_grant');
  expectError(await exchange(undefined), 400, 'invalid_request', /subject_token/);
});

await check('wrong, missing or non-exchangeable resource -> invalid_target', async () => {
  expectError(await exchange(aliceToken, { resource: 'https://evil.test' }), 400, 'invalid_target');
  expectError(await exchange(aliceToken, { resource: 'https://saas.test' }), 400, 'invalid_target');
  expectError(await exchange(aliceToken, { resource: 'https://mcp.test' }), 400, 'invalid_target');
  expectError(await exchange(aliceToken, { resource: undefined }), 400, 'invalid_target');
});

await check('audience works like resource; a trailing slash names the same resource', async () => {
  const viaAudience = await exchange(aliceToken, { resource: undefined, audience: 'https://orders.test' });
  assert.equal(viaAudience.status, 200, JSON.stringify(viaAudience.body));
  const slashed = await exchange(aliceToken, { resource: 'https://orders.test/' });
  assert.equal(slashed.status, 200, JSON.stringify(slashed.body));
  assert.equal(claims(slashed.body.access_token).aud, 'https://orders.test');
});

await check('GET /test/exchanges counts successful exchanges per (sub, resource)', async () => {
  const before = await json(await fetch(`${issuer}/test/exchanges`));
  const dave = await mint({ sub: 'dave' });
  await exchange(dave);
  await exchange(dave, { resource: 'https://orders.test', scope: 'nope' }); // fails: not counted
  await exchange(dave, { resource: 'https://short.test' });
  await exchange(dave, { resource: 'https://short.test' });
  const after = await json(await fetch(`${issuer}/test/exchanges`));
  assert.equal(before['dave https://orders.test'], undefined);
  assert.equal(after['dave https://orders.test'], 1);
  assert.equal(after['dave https://short.test'], 2);
  // basic, post, three private_key_jwt, audience, trailing slash.
  assert.equal(after['alice https://orders.test'], 7, JSON.stringify(after));
});

await check('short.test tokens live 3 s; an expired caller token cannot be exchanged', async () => {
  const r = await exchange(aliceToken, { resource: 'https://short.test' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.expires_in, 3);
  const c = claims(r.body.access_token);
  assert.equal(c.aud, 'https://short.test');
  assert.equal(c.exp - c.iat, 3);
  assert.equal((await get('/orders/whoami', r.body.access_token)).status, 200);
  const brief = await mint({ sub: 'alice', ttl: 1 });
  await sleep(3500);
  const res = await get('/orders/whoami', r.body.access_token);
  assert.equal(res.status, 401);
  assert.match((await json(res)).error_description, /expired/);
  expectError(await exchange(brief), 400, 'invalid_grant', /expired/);
});

await check('GET /test/seen lists every Authorization header in order, filterable by audience', async () => {
  const all = await json(await fetch(`${api}/test/seen`));
  assert.ok(all.includes(`Bearer ${ordersToken}`));
  // The smoke test itself sent the caller's token once on purpose (above), twice
  // counting whoami; a real test asserts it is absent.
  const mcpOnes = await json(await fetch(`${api}/test/seen?audience=${encodeURIComponent('https://mcp.test')}`));
  assert.deepEqual(mcpOnes, [`Bearer ${aliceToken}`, `Bearer ${aliceToken}`]);
  assert.ok(all.indexOf(`Bearer ${ordersToken}`) < all.indexOf(`Bearer ${aliceToken}`));
});

await check('GET /openapi.json describes the orders API at the downstream URL', async () => {
  const doc = await json(await fetch(`${api}/openapi.json`));
  assert.match(doc.openapi, /^3\.0\./);
  assert.deepEqual(doc.servers, [{ url: api }]);
  assert.equal(doc.paths['/orders'].get.operationId, 'listOrders');
  assert.equal(doc.paths['/orders'].post.operationId, 'createOrder');
  assert.equal(doc.paths['/orders/whoami'].get.operationId, 'whoAmI');
  assert.equal(doc.components.securitySchemes.orders_oauth.type, 'oauth2');
  for (const op of [doc.paths['/orders'].get, doc.paths['/orders'].post, doc.paths['/orders/whoami'].get]) {
    assert.ok(op.security?.length, `${op.operationId} has security`);
  }
});

// Authorization code + PKCE for saas-connect, with a redirect_uri on a port
// nobody registered.
const port = 20000 + Math.floor(Math.random() * 40000);
const redirectUri = `http://127.0.0.1:${port}/oauth/callback`;
let saasTokens;
await check(`authorization code + PKCE for saas-connect via ${redirectUri}`, async () => {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const browser = new Browser();
  const result = await browser.authorize({
    client_id: 'saas-connect',
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'offline_access saas:read',
    resource: 'https://saas.test',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }, { login: 'alice', callbackPrefix: redirectUri });
  assert.ok(result.callback, `stopped at ${result.status}: ${result.html?.slice(0, 400)}`);
  assert.deepEqual(result.pages, ['login', 'consent']);
  const q = result.callback.searchParams;
  assert.equal(q.get('state'), state);
  assert.equal(q.get('iss'), issuer);
  assert.ok(q.get('code'), result.callback.href);

  const r = await tokenRequest({
    grant_type: 'authorization_code', code: q.get('code'), redirect_uri: redirectUri, code_verifier: verifier,
  }, saasConnect);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.token_type, 'Bearer');
  assert.equal(r.body.expires_in, 300);
  assert.equal(r.body.scope, 'saas:read');
  assert.ok(r.body.refresh_token, 'refresh_token issued');
  const { payload } = await jose.jwtVerify(r.body.access_token, issuerKeys, { issuer, audience: 'https://saas.test', typ: 'at+jwt' });
  assert.equal(payload.sub, 'alice');
  assert.equal(payload.client_id, 'saas-connect');
  assert.equal(payload.scope, 'saas:read');
  saasTokens = r.body;
});

await check('GET /saas/me accepts the saas token; /orders refuses it and /saas/me refuses orders tokens', async () => {
  const me = await get('/saas/me', saasTokens.access_token);
  assert.equal(me.status, 200);
  const body = await json(me);
  assert.equal(body.sub, 'alice');
  assert.equal(body.aud, 'https://saas.test');
  assert.equal(body.scope, 'saas:read');
  assert.equal(body.jti, claims(saasTokens.access_token).jti);
  assert.equal((await get('/orders', saasTokens.access_token)).status, 401);
  assert.equal((await get('/saas/me', writeToken)).status, 401);
});

await check('refresh rotates the refresh token; the used one is refused afterwards', async () => {
  const first = await tokenRequest({ grant_type: 'refresh_token', refresh_token: saasTokens.refresh_token }, saasConnect);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.ok(first.body.refresh_token && first.body.refresh_token !== saasTokens.refresh_token, 'new refresh token');
  assert.equal(claims(first.body.access_token).aud, 'https://saas.test');
  assert.notEqual(claims(first.body.access_token).jti, claims(saasTokens.access_token).jti);

  const second = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, saasConnect);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.notEqual(second.body.refresh_token, first.body.refresh_token);

  expectError(await tokenRequest({ grant_type: 'refresh_token', refresh_token: saasTokens.refresh_token }, saasConnect), 400, 'invalid_grant');
  // Reuse detection: presenting a used refresh token revokes the whole grant,
  // so the newest refresh token is dead as well.
  expectError(await tokenRequest({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token }, saasConnect), 400, 'invalid_grant');
});

await check('with openid, via localhost on another port, no resource parameter: still a saas.test JWT + refresh token', async () => {
  const other = `http://localhost:${port + 1}/oauth/callback`;
  const { verifier, challenge } = pkce();
  const result = await new Browser().authorize({
    client_id: 'saas-connect',
    response_type: 'code',
    redirect_uri: other,
    scope: 'openid offline_access saas:read',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }, { login: 'erin', callbackPrefix: other });
  assert.ok(result.callback?.searchParams.get('code'), `stopped: ${result.status} ${result.html?.slice(0, 300)} ${result.callback}`);
  const r = await tokenRequest({
    grant_type: 'authorization_code', code: result.callback.searchParams.get('code'), redirect_uri: other, code_verifier: verifier,
  }, saasConnect);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.id_token, 'id_token');
  assert.ok(r.body.refresh_token, 'refresh_token');
  const c = claims(r.body.access_token);
  assert.equal(c.aud, 'https://saas.test');
  assert.equal(c.sub, 'erin');
  const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: r.body.refresh_token }, saasConnect);
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  assert.equal(claims(refreshed.body.access_token).aud, 'https://saas.test');
});

await check('redirect_uri must be loopback with path /oauth/callback; PKCE is required; only saas.test', async () => {
  const { challenge } = pkce();
  const base = {
    client_id: 'saas-connect', response_type: 'code', scope: 'saas:read', code_challenge: challenge, code_challenge_method: 'S256',
  };
  for (const bad of [`http://127.0.0.1:${port}/elsewhere`, 'http://example.test/oauth/callback', `https://127.0.0.1:${port}/oauth/callback`]) {
    const r = await new Browser().authorize({ ...base, redirect_uri: bad }, { callbackPrefix: bad });
    assert.equal(r.status, 400, `${bad} must be refused`);
    assert.match(r.html, /redirect_uri/);
  }
  const noPkce = await new Browser().authorize(
    { ...base, redirect_uri: redirectUri, code_challenge: undefined, code_challenge_method: undefined },
    { callbackPrefix: redirectUri },
  );
  assert.equal(noPkce.callback?.searchParams.get('error'), 'invalid_request');
  const orders = await new Browser().authorize(
    { ...base, redirect_uri: redirectUri, resource: 'https://orders.test' },
    { callbackPrefix: redirectUri },
  );
  assert.equal(orders.callback?.searchParams.get('error'), 'invalid_target');
});

await check('SIGTERM stops the harness cleanly', async () => {
  child.kill('SIGTERM');
  const { code, signal } = await Promise.race([childExit, sleep(5000).then(() => ({ code: 'timeout' }))]);
  assert.equal(signal, null);
  assert.equal(code, 0);
});

if (child.exitCode === null) child.kill('SIGKILL');
if (failed) console.log(`--- harness stderr ---\n${childStderr}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
