// The ledger's statement view in a real browser: headless Chromium (driven by
// playwright-core, no browser download) opens the test host page (host/), which connects to
// the ledger over HTTP with the official TypeScript client, calls `statement`, and renders
// the view `ui://ledger/statement` in a sandbox proxy on another origin through the official
// MCP Apps host bridge. Checked here:
//   - the rows the view shows are the transfers of the tool's structured result, in order,
//     with their amounts as the account sees them, and the chart has a bar for each;
//   - "Load more" calls the app-only tool `statement_more` through the bridge and the host,
//     and the rows of the next page appear under the first;
//   - the view's Content-Security-Policy is the one built from the resource's
//     `_meta.ui.csp`, and it blocks a request to a domain the resource did not declare (a
//     local server on another port, which counts what reaches it: nothing does, and the
//     browser reports the violation), while the same request from the host page arrives;
//   - the view runs without a script error.
// A screenshot of the view is written to target/views/statement.png.
//
//   node statement.mjs ERA LEDGER_MCP_URL ISSUER_URL CHROMIUM
//
// ERA is the host's: 2026-07-28 (pinned; the extension is declared in each request) or
// legacy (the initialize handshake, which declares it once).
// The transfers it books for its checks go into whatever database the ledger uses.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';

import { checks, closeServers, here, hostPage, hostServer, sandboxServer, serve, shots, waitShown, watchErrors } from './harness.mjs';

const [era, ledgerUrl, issuer, executablePath] = process.argv.slice(2);
if (!['2026-07-28', 'legacy'].includes(era) || !ledgerUrl || !issuer || !executablePath) {
  console.error('usage: node statement.mjs 2026-07-28|legacy LEDGER_MCP_URL ISSUER_URL CHROMIUM');
  process.exit(2);
}
const ACCOUNT = 'acme-operating';
const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

const { check, unexpected, finish } = checks(`views ${era}`);

async function bearer() {
  const reply = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'alice', tenant: 'acme', scope: 'ledger:read ledger:write', resource: ledgerUrl }),
  });
  return (await reply.json()).access_token;
}

async function connect(token, capabilities) {
  const client = new Client({ name: 'views-test', version: '1.0.0' }, {
    capabilities: { elicitation: { form: {} }, ...capabilities },
    versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } },
  });
  // Transfers ask for confirmation: the user says yes.
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(ledgerUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** Transfers in and out of the account, for two pages of the statement: a round of them
 * leaves both balances as they were, so that the test can run again on the same database. */
const ROUND = [
  ['acme-payroll', 'Salaries, March', 180_000], ['acme-operating', 'Refund of overpaid salary', 12_000],
  ['acme-payroll', 'Contractor invoice 1042', 34_750], ['acme-operating', 'Expense claim returned', 2_380],
  ['acme-payroll', 'Travel advance', 8_900], ['acme-operating', 'Unused travel advance', 1_450],
  ['acme-payroll', 'Salaries, April', 181_200], ['acme-operating', 'Payroll surplus returned', 389_020],
];
async function book(client, count) {
  for (let i = 0; i < count; i++) {
    const [to, memo, amount] = ROUND[i % ROUND.length];
    const from = to === ACCOUNT ? 'acme-payroll' : ACCOUNT;
    const booked = await client.callTool({ name: 'transfer', arguments: { from, to, amount_cents: amount, memo } });
    if (booked.isError === true) throw new Error(`booking ${memo}: ${JSON.stringify(booked.content)}`);
  }
}

let browser;
try {
  const token = await bearer();
  const client = await connect(token, { extensions: UI });
  await book(client, 3 * ROUND.length);

  // What the server says, to compare the view with.
  const first = await client.callTool({ name: 'statement', arguments: { account: ACCOUNT } });
  const firstPage = first.structuredContent;
  check('statement gives a first page of 20 transfers and a cursor', first.isError !== true && firstPage?.transfers?.length === 20 &&
    typeof firstPage?.nextCursor === 'string', first);
  const more = await client.callTool({ name: 'statement_more', arguments: { account: ACCOUNT, cursor: firstPage.nextCursor } });
  const secondPage = more.structuredContent;
  check('statement_more gives the next page', more.isError !== true && secondPage?.transfers?.length > 0, more);
  // Without the extension the app-only tool is refused, with the capability it lacks.
  const plain = await connect(token, {});
  const refused = await plain.callTool({ name: 'statement_more', arguments: { account: ACCOUNT, cursor: firstPage.nextCursor } })
    .catch((e) => ({ code: e?.code, thrown: String(e) }));
  check('a client without the ui extension cannot call statement_more (-32021)', refused.code === -32021, refused);
  await plain.close();
  await client.close();

  // The host page and its /mcp, passed through to the ledger so that the page's requests
  // stay on its own origin (the ledger sends no CORS headers).
  const hostSite = await hostServer({ mcpUrl: ledgerUrl });
  // The sandbox proxy's origin: its page carries the policy the host built as a header.
  const sandbox = await sandboxServer();
  const { policies } = sandbox;

  // A domain nobody declared: it counts every request that reaches it.
  let hits = 0;
  const elsewhere = await serve((req, res) => {
    hits++;
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' }).end('reached');
  });

  browser = await chromium.launch({ executablePath, headless: true });
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  // Script errors of any frame, and failed requests. The browser logs the blocked fetch
  // below as an error of its own, and a server may decline the client's optional GET
  // stream with 405 (Streamable HTTP); neither is a failure of the view.
  const errors = watchErrors(page, /Content Security Policy|Failed to load resource/);
  await page.goto(hostPage(hostSite.origin, { era, token, tool: 'statement', args: JSON.stringify({ account: ACCOUNT }), sandbox: sandbox.origin }));

  // The view: the frame inside the sandbox proxy's frame.
  const view = page.frameLocator('#sandbox').frameLocator('iframe');
  const rows = view.locator('tbody tr[data-transfer-id]');
  await waitShown(rows, page, check, 'the view renders rows');
  const host = await page.evaluate(() => window.host);
  console.log(`note views ${era} the host negotiated ${host.protocol}`);
  const built = readFileSync(join(here, '..', '..', 'examples', 'ledger', 'views', 'statement.html'), 'utf8');
  check('the view the ledger serves is the checked-in examples/ledger/views/statement.html', host.html === built,
    { served: host.html?.length, built: built.length });
  check(`the host page connected in ${era}, read the view and sent it the result`, host.error === undefined &&
    (era === 'legacy' ? host.protocol !== '2026-07-28' : host.protocol === '2026-07-28') && host.initialized && host.resultSent, host);

  const shown = await rows.evaluateAll((trs) => trs.map((tr) => ({ id: Number(tr.dataset.transferId), cells: [...tr.cells].map((td) => td.textContent) })));
  const expected = firstPage.transfers;
  check('the host sent the view the same first page', JSON.stringify(host.result?.structuredContent?.transfers) === JSON.stringify(expected), host.result);
  check('the view shows the 20 transfers of the result, newest first', JSON.stringify(shown.map((r) => r.id)) === JSON.stringify(expected.map((t) => t.id)),
    { shown: shown.map((r) => r.id), expected: expected.map((t) => t.id) });
  const money = (cents) => new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' }).format(cents / 100);
  const asSeen = (t) => (t.to === ACCOUNT ? t.amount_cents : -t.amount_cents);
  const cellsOk = expected.every((t, i) => shown[i]?.cells[1] === t.memo && shown[i]?.cells[2] === `${t.from} → ${t.to}` && shown[i]?.cells[3] === money(asSeen(t)));
  check('each row has the memo, from → to and the amount as the account sees it', cellsOk, { shown: shown.slice(0, 3), expected: expected.slice(0, 3) });
  check('the chart has a bar for each transfer', (await view.locator('svg#chart rect').count()) === expected.length);
  const button = view.locator('button#load-more');
  check('"Load more" is offered while there is a next page', await button.isVisible());

  mkdirSync(shots, { recursive: true });
  await page.locator('#view').screenshot({ path: join(shots, 'statement.png') });

  // The policy: built from `_meta.ui.csp`, served with the sandbox page, and in force in the view.
  check('the sandbox page was served with the policy the host built', policies.length === 1 && policies[0] === host.policy, { policies, host: host.policy });
  check('the policy allows connections only to the declared domain', /(^|; )connect-src https:\/\/api\.ledger\.example(;|$)/.test(host.policy ?? '') &&
    /(^|; )default-src 'none'(;|$)/.test(host.policy ?? ''), host.policy);
  const viewFrame = page.frames().find((f) => f.parentFrame()?.url().startsWith(`${sandbox.origin}/sandbox.html`));
  const blocked = await viewFrame.evaluate(async (target) => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push({ blocked: e.blockedURI, directive: e.effectiveDirective, policy: e.originalPolicy }));
    let outcome;
    try {
      const reply = await fetch(target);
      outcome = `fetched ${reply.status}`;
    } catch (e) {
      outcome = `refused: ${e}`;
    }
    // The violation event is queued as a task; let it run.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { outcome, violations };
  }, `${elsewhere.origin}/from-the-view`);
  check('a fetch from the view to an undeclared domain fails', blocked.outcome.startsWith('refused'), blocked);
  check('the browser reports it as a connect-src violation', blocked.violations.some((v) => v.directive === 'connect-src' && v.blocked.startsWith(elsewhere.origin)), blocked.violations);
  check('the violated policy is the one the host built', blocked.violations.every((v) => v.policy === host.policy), blocked.violations);
  check('nothing reached the undeclared domain', hits === 0, { hits });
  const fromHost = await page.evaluate(async (target) => (await fetch(target)).text(), `${elsewhere.origin}/from-the-host`);
  check('the same request from the host page (no such policy) does arrive', fromHost === 'reached' && hits === 1, { fromHost, hits });

  // Load more: the view asks the host, the host asks the ledger.
  await button.click();
  const total = expected.length + secondPage.transfers.length;
  await view.locator(`tbody tr[data-transfer-id]:nth-child(${total})`).waitFor({ timeout: 15000 }).catch(() => {});
  const after = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.transferId)));
  const calls = (await page.evaluate(() => window.host.calls));
  // Cursors are sealed afresh for each answer: the view's is the one of the result it was sent.
  const sentCursor = host.result?.structuredContent?.nextCursor;
  check('the click called statement_more through the bridge, with the cursor of the result the view was sent', calls.length === 1 &&
    calls[0].name === 'statement_more' && calls[0].arguments?.account === ACCOUNT && typeof sentCursor === 'string' &&
    calls[0].arguments?.cursor === sentCursor, { calls, sentCursor });
  check('the next page\'s rows follow the first page\'s', JSON.stringify(after) === JSON.stringify([...expected, ...secondPage.transfers].map((t) => t.id)),
    { after, next: secondPage.transfers.map((t) => t.id) });
  check('the chart grew with them', (await view.locator('svg#chart rect').count()) === total);
  check('"Load more" stays exactly while there is a further page', (await button.isVisible()) === (typeof secondPage.nextCursor === 'string'));
  check('the view and the host ran without a script error', errors.length === 0, errors);
  await page.locator('#view').screenshot({ path: join(shots, 'statement-more.png') });

  // Last, since the view's own App will see an answer to a request it did not send: the
  // host passes on only calls of tools the server listed for views.
  const probe = await viewFrame.evaluate(() => new Promise((resolve) => {
    window.addEventListener('message', (event) => {
      if (event.data?.id === 'probe') resolve(event.data);
    });
    window.parent.postMessage({ jsonrpc: '2.0', id: 'probe', method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, '*');
    setTimeout(() => resolve({ timeout: true }), 5000);
  }));
  const refusedByHost = await page.evaluate(() => window.host.refused);
  check('a call of a tool the server did not list is refused by the host, not sent on', probe.error !== undefined &&
    JSON.stringify(refusedByHost) === '["no_such_tool"]' && (await page.evaluate(() => window.host.calls.length)) === 1, { probe, refusedByHost });
} catch (e) {
  unexpected(e);
} finally {
  await browser?.close();
  closeServers();
}
finish();
