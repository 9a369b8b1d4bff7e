// The test host: a web page that connects to an MCP server with the official TypeScript
// client, calls a tool that has a view, and renders the view the way MCP Apps says a web
// host must: in a sandbox proxy on another origin (served with the CSP built from the
// resource's `_meta.ui.csp`), talking to it through the official host bridge (`AppBridge`
// over a `PostMessageTransport`). The browser test drives it; what it saw is kept in
// `window.host` for the test to read.
//
// Its address says what to do, after the `#`: `token` (a bearer token for the server),
// `tool` and `args` (JSON) of the call, `sandbox` (the sandbox proxy's origin), `era`
// (`2026-07-28`, pinned, or `legacy`: the initialize handshake). The MCP
// endpoint is `/mcp` on this page's own origin.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';

import { viewPolicy } from './csp.js';

const UI_EXTENSION = 'io.modelcontextprotocol/ui';
const settings = new URLSearchParams(location.hash.slice(1));
const host = { protocol: undefined, calls: [], refused: [], policy: undefined, initialized: false, html: undefined, result: undefined, resultSent: false, error: undefined };
window.host = host;

async function allTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

async function main() {
  const client = new Client(
    { name: 'browser-test-host', version: '1.0.0' },
    {
      capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      versionNegotiation: { mode: settings.get('era') === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
    },
  );
  const headers = settings.has('token') ? { Authorization: `Bearer ${settings.get('token')}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href), { requestInit: { headers } }));
  host.protocol = client.getNegotiatedProtocolVersion();

  const tools = await allTools(client);
  const name = settings.get('tool');
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`the server has no tool ${name}`);
  const uri = getToolUiResourceUri(tool);
  if (uri === undefined) throw new Error(`tool ${name} has no view`);
  const args = JSON.parse(settings.get('args') ?? '{}');

  // The call and the view's start-up run side by side, as in the specification's lifecycle.
  const called = client.callTool({ name, arguments: args });

  const read = await client.readResource({ uri });
  const resource = read.contents.find((c) => c.uri === uri) ?? read.contents[0];
  if (resource?.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`${uri} is ${resource?.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  const html = resource.text ?? new TextDecoder().decode(Uint8Array.from(atob(resource.blob ?? ''), (c) => c.charCodeAt(0)));
  host.html = html;
  const ui = resource._meta?.ui ?? {};
  host.policy = viewPolicy(ui.csp);
  console.log(`view ${uri}: Content-Security-Policy ${host.policy}`);

  const box = document.getElementById('view');
  box.classList.toggle('bordered', ui.prefersBorder !== false);
  const frame = document.createElement('iframe');
  frame.id = 'sandbox';
  frame.title = tool.title ?? tool.name;
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  const sandbox = new URL('/sandbox.html', settings.get('sandbox'));
  sandbox.searchParams.set('host', location.origin);
  sandbox.searchParams.set('csp', host.policy);
  frame.src = sandbox.href;

  const bridge = new AppBridge(
    null,
    { name: 'browser-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {}, sandbox: { csp: ui.csp ?? {} } },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', locale: 'en-GB', timeZone: 'UTC', containerDimensions: { width: 720, maxHeight: 4000 } } },
  );
  // Calls from the view go to the same server, and only to tools the view may call
  // (visibility includes "app"; MCP Apps, "Visibility").
  bridge.oncalltool = async (params) => {
    const target = tools.find((t) => t.name === params.name);
    const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
    if (target === undefined || !visibility.includes('app')) {
      host.refused.push(params.name);
      throw new Error(`the view may not call ${params.name}`);
    }
    host.calls.push(params);
    return client.callTool(params);
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) frame.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onloggingmessage = (params) => console.log('view log', JSON.stringify(params));
  bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html, csp: ui.csp, permissions: ui.permissions });
  bridge.oninitialized = () => {
    host.initialized = true;
    (async () => {
      await bridge.sendToolInput({ arguments: args });
      host.result = await called;
      await bridge.sendToolResult(host.result);
      host.resultSent = true;
    })().catch(fail);
  };
  box.append(frame);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
}

function fail(error) {
  host.error = String(error?.stack ?? error);
  document.getElementById('error').textContent = host.error;
}

main().catch(fail);
