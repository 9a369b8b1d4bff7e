// Drives the secured `tenants` example with the official TypeScript SDK v2 client, bearer
// tokens minted by the development issuer in the request headers. Usage:
//   node tenants.mjs MODE http://127.0.0.1:PORT/mcp http://127.0.0.1:ISSUER_PORT
// MODE is `2026-07-28` (pinned) or `legacy` (the initialize handshake). Checks that each
// tenant sees only its own orders, that a missing scope is refused, and that a client
// without a token is turned away.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [mode, url, issuer] = process.argv.slice(2);
const label = `ts-v2 tenants ${mode}`;
let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} ${what}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

async function token(sub, tenant, scope) {
  const reply = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub, tenant, scope, resource: url }),
  });
  return (await reply.json()).access_token;
}

async function connect(bearer) {
  const requestInit = bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
  const negotiation = mode === '2026-07-28' ? { pin: mode } : mode;
  const client = new Client({ name: 'tenants-ts', version: '1.0.0' }, { versionNegotiation: { mode: negotiation } });
  await client.connect(transport);
  return client;
}

async function fails(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return String(e?.message ?? e);
  }
}

const clients = [];
try {
  // Without a token: refused with 401 before anything is served.
  const refused = await fails(connect(null).then((c) => { clients.push(c); return c.listTools(); }));
  check('a client without a token is refused (401)', refused !== null && /401|nauthorized/.test(refused), refused);

  const acme = await connect(await token('wile', 'acme', 'orders:read orders:write'));
  clients.push(acme);
  const { tools } = await acme.listTools();
  const names = tools.map((t) => t.name);
  check('tools/list shows what the scopes allow', JSON.stringify(names) === '["list_orders","place_order"]', names);
  const mine = await acme.callTool({ name: 'list_orders', arguments: {} });
  const text = mine.content?.[0]?.text ?? '';
  check('list_orders returns only acme orders', text.includes('"tenant":"acme"') && text.includes('anvil') && !text.includes('magnet'), mine);
  const own = await acme.readResource({ uri: 'orders://acme/1' });
  check('reading an own order works', (own.contents?.[0]?.text ?? '').includes('anvil'), own);
  const foreign = await fails(acme.readResource({ uri: 'orders://globex/1' }));
  check("reading another tenant's order is refused", foreign !== null && /another tenant/.test(foreign), foreign);
  const review = await acme.getPrompt({ name: 'review_orders', arguments: {} });
  const prompt = review.messages?.[0]?.content?.text ?? '';
  check('the prompt sees only acme orders', prompt.includes('anvil') && !prompt.includes('magnet'), prompt);

  const globex = await connect(await token('hank', 'globex', 'orders:read'));
  clients.push(globex);
  const theirs = await globex.callTool({ name: 'list_orders', arguments: {} });
  check('list_orders returns only globex orders', (theirs.content?.[0]?.text ?? '').includes('magnet') &&
    !(theirs.content?.[0]?.text ?? '').includes('anvil'), theirs);
  const write = await fails(globex.callTool({ name: 'place_order', arguments: { item: 'x', quantity: 1 } }));
  check('a call without its scope is refused (403 insufficient_scope)', write !== null && /403|insufficient_scope|orders:write/.test(write), write);
} catch (e) {
  check('no unexpected error', false, String(e?.stack ?? e));
} finally {
  for (const c of clients) await c.close().catch(() => {});
}
if (failures > 0) {
  console.log(`${label}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${label}: all checks passed`);
process.exit(0);
