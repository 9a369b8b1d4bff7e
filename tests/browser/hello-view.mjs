// The smallest view, `ui://hello/greeting` of the hello-view example, in a real browser: a
// page of plain HTML that talks to its host through mcp-runtime's view bridge
// (`mcp_runtime::VIEW_BRIDGE_JS`, mcp-runtime/src/views/bridge.js) and nothing else. The
// same test host as statement.mjs (host/) connects to the server with the official
// TypeScript client, calls `greet` with {"name": "Ada"}, and renders the view in a sandbox
// proxy on another origin through the official MCP Apps host bridge (AppBridge), in
// headless Chromium. The sandbox proxy is served here with a recorder in front of it, which
// keeps every message between the host and the view, both ways. Checked here:
//   - the page the server serves is examples/views/hello-view.html with the bridge inlined;
//   - the handshake: ui/initialize (the view's name and version, protocol 2026-01-26), the
//     host's answer (its name, its context), ui/notifications/initialized;
//   - the tool's arguments and result reach the page, which shows them;
//   - the button calls `greet` again through the host (tools/call), and the page shows the
//     result; markup in a result is shown as text;
//   - the page's size goes to the host (ui/notifications/size-changed), which sizes its frame;
//   - the bridge answers ping and ui/resource-teardown (once the page's onTeardown is
//     done), refuses a request it does not know (-32601), rejects a request the host does
//     not answer in time (and cancels it), an error answer and a call the host refuses;
//     it ignores messages that do not come from its parent;
//   - the rest of its API: one connection per page, handlers added, removed and called
//     late with the last notification, tool-cancelled, a context change merged, notify(),
//     sendSize(), request();
//   - the view and the host run without a script error;
//   - in pages of the test's own: connect() outside a frame, with a parent that does not
//     answer and again after that, autoResize: false, an error answer's code and data.
// The messages are printed, and written to target/views/hello-view-ERA.json; a screenshot
// to target/views/hello-view.png.
//
//   node hello-view.mjs ERA HELLO_VIEW_MCP_URL CHROMIUM
//
// ERA is the host's: 2026-07-28 (pinned) or legacy (the initialize handshake). The view's
// own protocol with the host is the same in both.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';

import { checks, closeServers, hostPage, hostServer, root, sandboxServer, shots, waitShown, watchErrors } from './harness.mjs';

const [era, serverUrl, executablePath] = process.argv.slice(2);
if (!['2026-07-28', 'legacy'].includes(era) || !serverUrl || !executablePath) {
  console.error('usage: node hello-view.mjs 2026-07-28|legacy HELLO_VIEW_MCP_URL CHROMIUM');
  process.exit(2);
}
const URI = 'ui://hello/greeting';

const { check, unexpected, finish } = checks(`hello-view ${era}`);

// Runs in the sandbox proxy's page, before the proxy's own script: it records every message
// the proxy receives (from the host: its parent; from the view: its inner frame), and lets
// the test speak to the view as the host would (`probe`). The answers to probes, and the
// requests of the method `test/dropped` (a host that never answers), stop here.
const RECORDER = `
window.recorded = [];
window.addEventListener('message', (event) => {
  const from = event.source === window.parent ? 'host' : 'view';
  const data = event.data;
  const probeAnswer = from === 'view' && typeof data?.id === 'string' && data.id.startsWith('probe-');
  window.recorded.push({ from, probe: probeAnswer, at: performance.now(), data });
  if (probeAnswer || data?.method === 'test/dropped') event.stopImmediatePropagation();
});
window.probe = (message) => {
  window.recorded.push({ from: 'host', probe: true, at: performance.now(), data: message });
  document.querySelector('iframe').contentWindow.postMessage(message, location.origin);
};
`;

/** A message as the report shows it: the HTML of sandbox-resource-ready cut short. */
function shown({ from, probe, data }) {
  const copy = structuredClone(data);
  if (typeof copy?.params?.html === 'string') copy.params.html = `${copy.params.html.slice(0, 15)}… (${copy.params.html.length} characters)`;
  const way = from === 'view' ? (probe ? 'view → test' : 'view → host') : probe ? 'test → view' : 'host → view';
  return `${way} ${JSON.stringify(copy)}`;
}

let browser;
try {
  // What the server says, to compare the view with.
  const client = new Client({ name: 'hello-view-test', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
    versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: era } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl)));
  const greet = (await client.listTools()).tools.find((t) => t.name === 'greet');
  check('greet is shown in the view ui://hello/greeting', greet?._meta?.ui?.resourceUri === URI, greet);
  const direct = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
  check('greet answers with the greeting as structured content', JSON.stringify(direct.structuredContent) ===
    JSON.stringify({ name: 'Ada', message: 'Hello, Ada!' }), direct);
  await client.close();
  const page = readFileSync(join(root, 'examples', 'views', 'hello-view.html'), 'utf8');
  const bridge = readFileSync(join(root, 'mcp-runtime', 'src', 'views', 'bridge.js'), 'utf8');
  const expectedHtml = page.replace('/*VIEW_BRIDGE_JS*/', () => bridge);

  // The host page and its /mcp, passed through to the server (which sends no CORS headers).
  const hostSite = await hostServer({ mcpUrl: serverUrl });
  // The sandbox proxy's origin: host/sandbox.html with the recorder before its script,
  // served with the policy the host built.
  const sandbox = await sandboxServer({ before: RECORDER });

  browser = await chromium.launch({ executablePath, headless: true });
  const tab = await browser.newPage({ viewport: { width: 800, height: 600 } });
  const errors = watchErrors(tab);
  await tab.goto(hostPage(hostSite.origin, { era, tool: 'greet', args: JSON.stringify({ name: 'Ada' }), sandbox: sandbox.origin }));

  const view = tab.frameLocator('#sandbox').frameLocator('iframe');
  const items = view.locator('#greetings li');
  await waitShown(items, tab, check, 'the view shows the result');
  const host = await tab.evaluate(() => window.host);
  console.log(`note hello-view ${era} the host negotiated ${host.protocol} with the server`);
  check(`the host connected in ${era}, read the view and sent it the result`, host.error === undefined &&
    (era === 'legacy' ? host.protocol !== '2026-07-28' : host.protocol === '2026-07-28') && host.initialized && host.resultSent, host);
  check('the page served is examples/views/hello-view.html with mcp-runtime/src/views/bridge.js inlined', host.html === expectedHtml,
    { served: host.html?.length, expected: expectedHtml.length });
  check('the view shows the result of the host\'s call', JSON.stringify(await items.allTextContents()) === JSON.stringify(['Hello, Ada!']) &&
    host.result?.structuredContent?.message === 'Hello, Ada!', await items.allTextContents());
  check('the view shows the tool\'s arguments', (await view.locator('#status').textContent()) === 'The host asked to greet Ada.',
    await view.locator('#status').textContent());
  const viewFrame = tab.frames().find((f) => f.parentFrame()?.url().startsWith(`${sandbox.origin}/sandbox.html`));
  const proxyFrame = tab.frames().find((f) => f.url().startsWith(`${sandbox.origin}/sandbox.html`));
  check('the page took the host\'s theme from its context', (await viewFrame.evaluate(() => document.documentElement.style.colorScheme)) === 'light');

  // More, through the host: the button calls greet again.
  await view.locator('#name').fill('Grace');
  await view.locator('#greet').click();
  await items.nth(1).waitFor({ timeout: 15000 }).catch(() => {});
  check('the button\'s call through the host is shown under the first', JSON.stringify(await items.allTextContents()) ===
    JSON.stringify(['Hello, Ada!', 'Hello, Grace!']), await items.allTextContents());
  const markup = '<img src=x onerror="window.hacked=1">';
  await view.locator('#name').fill(markup);
  await view.locator('#greet').click();
  await items.nth(2).waitFor({ timeout: 15000 }).catch(() => {});
  check('markup in a result is shown as text, not parsed', (await items.nth(2).textContent()) === `Hello, ${markup}!` &&
    (await view.locator('#greetings img').count()) === 0 && (await viewFrame.evaluate(() => window.hacked)) === undefined);
  const calls = await tab.evaluate(() => window.host.calls);
  check('the host passed the two calls on to the server', JSON.stringify(calls) ===
    JSON.stringify([{ name: 'greet', arguments: { name: 'Grace' } }, { name: 'greet', arguments: { name: markup } }]), calls);

  // The bridge as a host's peer, through the proxy (`probe`): what it answers, what it
  // does with no answer or an error answer, and what it ignores.
  const answerTo = (id) => proxyFrame.evaluate(async (id) => {
    for (let i = 0; i < 50; i++) {
      const found = window.recorded.find((r) => r.from === 'view' && r.data?.id === id);
      if (found) return found.data;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return null;
  }, id);
  await proxyFrame.evaluate(() => window.probe({ jsonrpc: '2.0', id: 'probe-ping', method: 'ping' }));
  const pong = await answerTo('probe-ping');
  check('the bridge answers ping with {}', JSON.stringify(pong) === JSON.stringify({ jsonrpc: '2.0', id: 'probe-ping', result: {} }), pong);
  await proxyFrame.evaluate(() => window.probe({ jsonrpc: '2.0', id: 'probe-unknown', method: 'test/unknown', params: {} }));
  const unknown = await answerTo('probe-unknown');
  check('the bridge refuses a request it does not know with -32601', unknown?.error?.code === -32601, unknown);

  const dropped = await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    const started = performance.now();
    try {
      await view.request('test/dropped', {}, { timeoutMs: 300 });
      return { resolved: true };
    } catch (error) {
      return { message: error.message, after: performance.now() - started };
    }
  });
  check('a request the host does not answer rejects after its timeout, saying which', dropped.message ===
    'mcpView: the host did not answer test/dropped within 300 ms' && dropped.after >= 300, dropped);
  const refused = await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    try {
      await view.request('test/refused', {});
      return { resolved: true };
    } catch (error) {
      return { message: error.message, code: error.code };
    }
  });
  check('an error answer rejects with its message and code', refused.code === -32601 && /^mcpView: test\/refused failed: .+ \(-32601\)$/.test(refused.message), refused);
  const notListed = await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    return view.callTool('no_such_tool', {}).then((r) => ({ resolved: r }), (e) => ({ message: e.message, code: e.code }));
  });
  check('a call the host refuses rejects, with the host\'s message', notListed.message?.startsWith('mcpView: tools/call failed: ') &&
    notListed.message.includes('no_such_tool') && Number.isInteger(notListed.code), notListed);
  const displayMode = await viewFrame.evaluate(async () => (await mcpView.connect()).request('ui/request-display-mode', { mode: 'inline' }));
  check('request() resolves to the host\'s result', JSON.stringify(displayMode) === JSON.stringify({ mode: 'inline' }), displayMode);
  const ignored = await viewFrame.evaluate(async () => {
    // The same notification from the view's own window, not from its parent.
    window.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: { message: 'forged' } } }, '*');
    await new Promise((resolve) => setTimeout(resolve, 200));
    return [...document.querySelectorAll('#greetings li')].map((li) => li.textContent);
  });
  check('the bridge ignores messages that do not come from its parent', ignored.length === 3 && !ignored.includes('forged'), ignored);

  // The rest of the page's API, on the page's own connection (connect() again gives it).
  const probe = (message) => proxyFrame.evaluate((m) => window.probe(m), message);
  const same = await viewFrame.evaluate(async () => (await mcpView.connect()) === (await mcpView.connect()));
  check('connect() again gives the page\'s one connection', same === true);
  const late = await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    const first = (on) => new Promise((resolve) => {
      on(resolve);
      setTimeout(() => resolve('not called'), 2000);
    });
    return { input: await first(view.onToolInput), result: await first(view.onToolResult) };
  });
  check('a handler set after its notification is called with the last one', JSON.stringify(late.input) === JSON.stringify({ name: 'Ada' }) &&
    late.result?.structuredContent?.message === 'Hello, Ada!', late);
  await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    window.seen = { results: [], cancelled: [], contexts: [], teardowns: [] };
    window.stopSeeing = view.onToolResult((r) => window.seen.results.push(r.structuredContent?.message));
    view.onToolCancelled((reason) => window.seen.cancelled.push(reason));
    view.onContextChange((context) => window.seen.contexts.push({ ...context }));
    view.onTeardown((reason) => new Promise((resolve) => setTimeout(() => {
      window.seen.teardowns.push(reason);
      resolve();
    }, 200)));
  });
  await probe({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [], structuredContent: { message: 'Hello again, Ada!' } } });
  await items.nth(3).waitFor({ timeout: 5000 }).catch(() => {}); // delivered (the page shows it)
  await viewFrame.evaluate(() => window.stopSeeing());
  // The probes below reach the view in order; the answer to the last one says all came.
  await probe({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [], structuredContent: { message: 'Hello once more!' } } });
  await probe({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'user action' } });
  await probe({ jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } });
  await probe({ jsonrpc: '2.0', id: 'probe-teardown', method: 'ui/resource-teardown', params: { reason: 'closed' } });
  const tornDown = await answerTo('probe-teardown');
  const seen = await viewFrame.evaluate(() => window.seen);
  const view2 = await viewFrame.evaluate(async () => (await mcpView.connect()).hostContext);
  check('handlers add to one another (the page\'s still runs), and the function on...() returns removes one', JSON.stringify(seen.results) ===
    JSON.stringify(['Hello, Ada!', 'Hello again, Ada!']) && JSON.stringify((await items.allTextContents()).slice(3)) ===
    JSON.stringify(['Hello again, Ada!', 'Hello once more!']), { seen: seen.results, shown: await items.allTextContents() });
  check('onToolCancelled gets the reason', JSON.stringify(seen.cancelled) === '["user action"]', seen.cancelled);
  check('a context change is merged into hostContext and handed to onContextChange', seen.contexts.length === 1 &&
    seen.contexts[0].theme === 'dark' && seen.contexts[0].locale === 'en-GB' && view2.theme === 'dark' && view2.timeZone === 'UTC', { seen: seen.contexts, view2 });
  const teardownAsked = (await proxyFrame.evaluate(() => window.recorded)).find((r) => r.data?.id === 'probe-teardown' && r.data.method);
  const teardownAnswered = (await proxyFrame.evaluate(() => window.recorded)).find((r) => r.data?.id === 'probe-teardown' && !r.data.method);
  check('ui/resource-teardown runs onTeardown with the reason and is answered {} when its promise is done', JSON.stringify(tornDown?.result) === '{}' &&
    JSON.stringify(seen.teardowns) === '["closed"]' && teardownAnswered.at - teardownAsked.at >= 200, { tornDown, teardowns: seen.teardowns });

  const logged = new Promise((resolve) => {
    tab.on('console', (m) => { if (m.text().startsWith('view log')) resolve(m.text()); });
    setTimeout(() => resolve('nothing logged'), 5000);
  });
  const sizesBefore = (await proxyFrame.evaluate(() => window.recorded)).filter((r) => r.data?.method === 'ui/notifications/size-changed').length;
  await viewFrame.evaluate(async () => {
    const view = await mcpView.connect();
    view.notify('notifications/message', { level: 'info', data: 'hello from the view' });
    view.sendSize();
  });
  const log = await logged;
  check('notify() sends a notification the host receives (its log)', log.includes('"data":"hello from the view"'), log);
  const sizesAfter = (await proxyFrame.evaluate(() => window.recorded)).filter((r) => r.data?.method === 'ui/notifications/size-changed').length;
  check('sendSize() sends the size now, changed or not', sizesAfter === sizesBefore + 1, { sizesBefore, sizesAfter });

  // The size: the host sized its frame from the last size-changed.
  let sizes = [];
  let frameHeight;
  for (let i = 0; i < 50; i++) {
    sizes = (await proxyFrame.evaluate(() => window.recorded)).filter((r) => r.data?.method === 'ui/notifications/size-changed').map((r) => r.data.params);
    frameHeight = await tab.evaluate(() => document.getElementById('sandbox').style.height);
    if (sizes.length > 0 && frameHeight === `${sizes.at(-1).height}px`) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  check('the view sent its size, and the host sized its frame to it', sizes.length > 0 && sizes.every((s) => s.width > 0 && s.height > 0) &&
    frameHeight === `${sizes.at(-1)?.height}px`, { sizes, frameHeight });
  check('the view grew as the greetings came', sizes.length >= 2 && sizes.at(-1).height > sizes[0].height, sizes);

  // The conversation, in order.
  const recorded = await proxyFrame.evaluate(() => window.recorded);
  const wire = recorded.filter((r) => !String(r.data?.method ?? '').startsWith('ui/notifications/sandbox-'));
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, `hello-view-${era}.json`), `${JSON.stringify(wire.map(({ from, probe, data }) => ({ from: probe && from === 'host' ? 'test' : from, data })), null, 2)}\n`);
  for (const r of wire) console.log(`msg  hello-view ${era} ${shown(r)}`);

  const at = (from, test) => wire.findIndex((r) => r.from === from && test(r.data));
  const init = wire[at('view', (d) => d.method === 'ui/initialize')]?.data;
  check('the view starts with ui/initialize: its name, version and protocol', JSON.stringify(init?.params) === JSON.stringify({
    appInfo: { name: 'hello-view', version: '1.0.0' }, appCapabilities: {}, protocolVersion: '2026-01-26',
  }) && wire[0]?.data === init && Number.isInteger(init?.id), init);
  const initAnswer = wire.find((r) => r.from === 'host' && r.data.id === init?.id)?.data?.result;
  check('the host answers with its protocol version, name, capabilities and context', initAnswer?.protocolVersion === '2026-01-26' &&
    initAnswer?.hostInfo?.name === 'browser-test-host' && initAnswer?.hostCapabilities?.serverTools !== undefined &&
    initAnswer?.hostContext?.theme === 'light', initAnswer);
  const order = [
    at('view', (d) => d.method === 'ui/initialize'),
    at('host', (d) => d.id === init?.id && d.result !== undefined),
    at('view', (d) => d.method === 'ui/notifications/initialized'),
    at('host', (d) => d.method === 'ui/notifications/tool-input'),
    at('host', (d) => d.method === 'ui/notifications/tool-result'),
    at('view', (d) => d.method === 'tools/call'),
  ];
  check('then initialized, the tool\'s input, its result and the button\'s tools/call, in this order', order.every((n, i) => n >= 0 && (i === 0 || n > order[i - 1])), order);
  const input = wire.find((r) => r.data.method === 'ui/notifications/tool-input')?.data;
  check('the tool input holds the arguments of the call', JSON.stringify(input?.params) === JSON.stringify({ arguments: { name: 'Ada' } }), input);
  const result = wire.find((r) => r.data.method === 'ui/notifications/tool-result')?.data;
  check('the tool result is the CallToolResult of the call', JSON.stringify(result?.params?.structuredContent) === JSON.stringify(direct.structuredContent) &&
    Array.isArray(result?.params?.content), result);
  const call = wire.find((r) => r.from === 'view' && r.data.method === 'tools/call')?.data;
  const callAnswer = wire.find((r) => r.from === 'host' && r.data.id === call?.id && r.data.method === undefined)?.data;
  check('the button\'s tools/call has an id of its own, and its answer that id', JSON.stringify(call?.params) ===
    JSON.stringify({ name: 'greet', arguments: { name: 'Grace' } }) && call.id !== init.id &&
    callAnswer?.result?.structuredContent?.message === 'Hello, Grace!', { call, callAnswer });
  const cancelled = wire.find((r) => r.data.method === 'notifications/cancelled')?.data;
  const droppedRequest = wire.find((r) => r.data.method === 'test/dropped')?.data;
  check('the timed-out request is cancelled', cancelled?.params?.requestId === droppedRequest?.id && cancelled?.params?.reason === 'timeout', { cancelled, droppedRequest });
  check('every message is JSON-RPC 2.0', wire.every((r) => r.data?.jsonrpc === '2.0'), wire.filter((r) => r.data?.jsonrpc !== '2.0'));

  await tab.locator('#view').screenshot({ path: join(shots, 'hello-view.png') });
  check('the view and the host ran without a script error', errors.length === 0, errors);

  // The bridge alone, in pages of the test's own: at the top (no host), and in a frame of a
  // parent that does not answer, then answers as a host would, error answers included.
  const bare = await browser.newPage();
  await bare.setContent(`<script>${bridge}</script>`);
  const alone = await bare.evaluate(() => mcpView.connect().then(() => 'connected', (e) => e.message));
  check('connect() rejects in a page that is not in a frame', alone === 'mcpView: this page is not in a frame; an MCP Apps host renders it', alone);
  await bare.setContent('<iframe></iframe>');
  await bare.evaluate(() => {
    window.got = [];
    window.answering = false;
    window.addEventListener('message', (event) => {
      const m = event.data;
      window.got.push(m);
      if (!window.answering || m.id === undefined) return;
      const reply = m.method === 'ui/initialize'
        ? { result: { protocolVersion: '2026-01-26', hostInfo: { name: 'parent', version: '0' }, hostCapabilities: {}, hostContext: {} } }
        : { error: { code: -32000, message: 'not here', data: { why: 'a test' } } };
      event.source.postMessage({ jsonrpc: '2.0', id: m.id, ...reply }, '*');
    });
  });
  const child = bare.frames()[1];
  await child.setContent(`<p>child</p><script>${bridge}</script>`);
  const silent = await child.evaluate(() => mcpView.connect({ timeoutMs: 300 }).then(() => 'connected', (e) => e.message));
  const gotSilent = await bare.evaluate(() => window.got);
  check('connect() rejects when the host does not answer within timeoutMs, and cancels', silent === 'mcpView: the host did not answer ui/initialize within 300 ms' &&
    JSON.stringify(gotSilent.map((m) => m.method)) === JSON.stringify(['ui/initialize', 'notifications/cancelled']), { silent, gotSilent });
  await bare.evaluate(() => { window.answering = true; window.got = []; });
  const again = await child.evaluate(async () => {
    const view = await mcpView.connect({ timeoutMs: 300, autoResize: false });
    document.body.append(Object.assign(document.createElement('p'), { textContent: 'a line more' }));
    const failed = await view.request('test/fails').then(() => null, (e) => ({ message: e.message, code: e.code, data: e.data }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { host: view.hostInfo.name, failed };
  });
  const gotAgain = await bare.evaluate(() => window.got);
  check('connect() after a failure tries again', again.host === 'parent', again);
  check('an error answer rejects with its code and data', again.failed?.code === -32000 && again.failed?.data?.why === 'a test' &&
    again.failed?.message === 'mcpView: test/fails failed: not here (-32000)', again.failed);
  check('autoResize: false sends no size', JSON.stringify(gotAgain.map((m) => m.method)) ===
    JSON.stringify(['ui/initialize', 'ui/notifications/initialized', 'test/fails']), gotAgain);
  await bare.close();
} catch (e) {
  unexpected(e);
} finally {
  await browser?.close();
  closeServers();
}
finish();
