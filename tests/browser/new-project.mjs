// The view of a project `mcp new --template business-api` made, `ui://desk-business/tickets`
// of the server desk-business, in a real browser: a page of plain HTML with mcp-runtime's
// view bridge inlined (mcp-cli/templates/business-api/src/tickets.html). The test host
// (host/) connects to the server with the official TypeScript client, as the holder of an
// API key (the host page's /mcp passes each request on with the key as a bearer token),
// calls `list_tickets`, and renders the view in a sandbox proxy on another origin through
// the official MCP Apps host bridge, in headless Chromium. Checked here:
//   - the server refuses a caller without the key, and shows list_tickets in the view;
//   - the page served is the template's with the project's name and the bridge inlined;
//   - the view shows the first page of the host's call: 20 tickets, ticket 1 first;
//   - "Load more" calls list_tickets through the host with the page's cursor, and the next
//     20 tickets (ticket 21 first) appear under the first;
//   - the view and the host run without a script error.
// A screenshot of the view is written to target/views/new-project.png.
//
//   node new-project.mjs ERA DESK_BUSINESS_MCP_URL API_KEY CHROMIUM
//
// ERA is the host's: 2026-07-28 (pinned) or legacy (the initialize handshake). API_KEY is
// one the server was started with (API_KEY_WRITE or API_KEY_READ: it needs tickets:read).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';

import { checks, closeServers, hostPage, hostServer, root, sandboxServer, shots, waitShown, watchErrors } from './harness.mjs';

const [era, serverUrl, apiKey, executablePath] = process.argv.slice(2);
if (!['2026-07-28', 'legacy'].includes(era) || !serverUrl || !apiKey || !executablePath) {
  console.error('usage: node new-project.mjs 2026-07-28|legacy DESK_BUSINESS_MCP_URL API_KEY CHROMIUM');
  process.exit(2);
}
const NAME = 'desk-business';
const URI = `ui://${NAME}/tickets`;

const { check, unexpected, finish } = checks(`new-project ${era}`);

async function connect(headers) {
  const client = new Client({ name: 'new-project-test', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { requestInit: { headers } }));
  return client;
}

const ids = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let browser;
try {
  // What the server says, to compare the view with.
  const refused = await connect({}).then((c) => c.listTools()).then((r) => ({ listed: r.tools.length }), (e) => ({ error: String(e) }));
  check('the server refuses a caller without an API key', /\b401\b|Unauthorized/.test(refused.error ?? ''), refused);
  const client = await connect({ Authorization: `Bearer ${apiKey}` });
  const tool = (await client.listTools()).tools.find((t) => t.name === 'list_tickets');
  check(`list_tickets is shown in the view ${URI}`, tool?._meta?.ui?.resourceUri === URI, tool);
  const direct = await client.callTool({ name: 'list_tickets', arguments: {} });
  const firstPage = direct.structuredContent;
  check('list_tickets gives tickets 1 to 20 and a cursor', direct.isError !== true &&
    JSON.stringify(firstPage?.items?.map((t) => t.id)) === JSON.stringify(ids(1, 20)) && typeof firstPage?.nextCursor === 'string', direct);
  await client.close();
  const template = readFileSync(join(root, 'mcp-cli', 'templates', 'business-api', 'src', 'tickets.html'), 'utf8');
  const bridge = readFileSync(join(root, 'mcp-runtime', 'src', 'views', 'bridge.js'), 'utf8');
  const expectedHtml = template.replaceAll('{{name}}', NAME).replace('/*VIEW_BRIDGE_JS*/', () => bridge);

  // The host page, whose /mcp passes each request on to the server as the key's holder.
  const hostSite = await hostServer({ mcpUrl: serverUrl, headers: { authorization: `Bearer ${apiKey}` } });
  const sandbox = await sandboxServer();

  browser = await chromium.launch({ executablePath, headless: true });
  const tab = await browser.newPage({ viewport: { width: 800, height: 1400 } });
  const errors = watchErrors(tab);
  await tab.goto(hostPage(hostSite.origin, { era, tool: 'list_tickets', args: '{}', sandbox: sandbox.origin }));

  const view = tab.frameLocator('#sandbox').frameLocator('iframe');
  const rows = view.locator('#tickets tr');
  const shown = () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  await waitShown(rows, tab, check, 'the view shows the tickets');
  const host = await tab.evaluate(() => window.host);
  console.log(`note new-project ${era} the host negotiated ${host.protocol} with the server`);
  check(`the host connected in ${era} with the key, read the view and sent it the result`, host.error === undefined &&
    (era === 'legacy' ? host.protocol !== '2026-07-28' : host.protocol === '2026-07-28') && host.initialized && host.resultSent &&
    host.result?.isError !== true, host);
  check('the page served is the template\'s tickets.html with the project\'s name and mcp-runtime/src/views/bridge.js inlined',
    host.html === expectedHtml, { served: host.html?.length, expected: expectedHtml.length });
  const first = await shown();
  check('the view shows 20 rows, tickets 1 to 20 in order', JSON.stringify(first.map((r) => Number(r[0]))) === JSON.stringify(ids(1, 20)),
    first.map((r) => r[0]));
  check('ticket 1 first, with its title and status', JSON.stringify(first[0]) === JSON.stringify(['1', 'Question number 1', 'open']), first[0]);
  check('the status says 20 tickets are shown', (await view.locator('#status').textContent()) === '20 tickets shown.',
    await view.locator('#status').textContent());

  // Load more: the view asks the host, the host asks the server as the key's holder.
  const more = view.locator('button#more');
  check('"Load more" is offered', await more.isEnabled());
  await more.click();
  await rows.nth(39).waitFor({ timeout: 15000 }).catch(() => {});
  const after = await shown();
  check('after "Load more" the view shows 40 rows, tickets 1 to 40 in order', JSON.stringify(after.map((r) => Number(r[0]))) ===
    JSON.stringify(ids(1, 40)), after.map((r) => r[0]));
  check('ticket 21 follows ticket 20', JSON.stringify(after[20]) === JSON.stringify(['21', 'Question number 21', 'open']), after[20]);
  const calls = await tab.evaluate(() => window.host.calls);
  const sentCursor = host.result?.structuredContent?.nextCursor;
  check('the click called list_tickets through the host, with the cursor of the result the view was sent', calls.length === 1 &&
    calls[0].name === 'list_tickets' && typeof sentCursor === 'string' && calls[0].arguments?.cursor === sentCursor, { calls, sentCursor });
  check('the status says 40 tickets are shown, and "Load more" is offered again', (await view.locator('#status').textContent()) ===
    '40 tickets shown.' && (await more.isEnabled()), await view.locator('#status').textContent());
  const hostError = await tab.evaluate(() => window.host.error ?? (document.getElementById('error').textContent || undefined));
  check('the host and its bridge reported no error', hostError === undefined, hostError);
  check('the view and the host ran without a script error', errors.length === 0, errors);
  mkdirSync(shots, { recursive: true });
  await tab.locator('#view').screenshot({ path: join(shots, 'new-project.png') });
} catch (e) {
  unexpected(e);
} finally {
  await browser?.close();
  closeServers();
}
finish();
