// Drives the gateway example, in front of tests/servers/legacy-only.mjs (a TypeScript SDK
// v1 server of the handshake era only), with the official TypeScript SDK v2 client over
// stdio. Usage:
//   node gateway.mjs MODE <path-to-gateway-binary> <path-to-legacy-only.mjs>
// MODE is `2026-07-28` (pinned), `legacy` (the initialize handshake) or `auto`
// (server/discover first); auto must land on 2026-07-28 although the upstream cannot.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, gateway, upstream] = process.argv.slice(2);
const label = `ts-v2 ${mode} gateway`;
let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} ${what}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

let client;
try {
  const transport = new StdioClientTransport({
    command: gateway,
    args: ['--upstream', `legacy=node ${upstream} --stdio`, '--stdio'],
    stderr: 'inherit',
  });
  client = new Client(
    { name: 'gateway-ts', version: '1.0.0' },
    { versionNegotiation: { mode: mode === '2026-07-28' ? { pin: mode } : mode } },
  );
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion();
  const legacy = mode === 'legacy';
  check(`speaks ${legacy ? 'a handshake revision' : '2026-07-28'} (got ${version})`,
    legacy ? /^2025-/.test(version ?? '') : version === '2026-07-28', version);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check('tools/list names the upstream tools, prefixed', names.includes('legacy.add') &&
    names.includes('legacy.fail') && names.length === 17, names);

  const sum = await client.callTool({ name: 'legacy.add', arguments: { a: 2, b: 3 } });
  check('legacy.add returns the upstream result', sum.content?.[0]?.text === '5' &&
    sum.structuredContent?.sum === 5 && !sum.isError, sum);

  const failed = await client.callTool({ name: 'legacy.fail', arguments: {} });
  check('isError passes through', failed.isError === true &&
    failed.content?.[0]?.text === 'this tool always fails', failed);

  const read = await client.readResource({ uri: 'text://greeting' });
  check('resources/read reaches the upstream', read.contents?.[0]?.text === 'hello', read);

  const prompt = await client.getPrompt({ name: 'legacy.greet', arguments: { name: 'Ada' } });
  check('prompts/get reaches the upstream',
    prompt.messages?.[0]?.content?.text === 'Say hello to Ada.', prompt);
} catch (e) {
  check('session', false, String(e?.stack ?? e));
} finally {
  await client?.close().catch(() => {});
}
console.log(failures === 0 ? `${label}: all checks passed` : `${label}: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
