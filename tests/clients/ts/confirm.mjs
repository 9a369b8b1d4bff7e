// Drives the `orders` example with the official TypeScript SDK v2 client. Pinned to the
// 2026-07-28 revision, deleting an order answers `input_required` with a confirmation form,
// the client's elicitation handler answers it, and the SDK retries the call with the answer
// and the sealed requestState. In the handshake era (`legacy`) the same handler's question
// arrives as an `elicitation/create` request from the server. Usage:
//   node confirm.mjs MODE stdio <path-to-orders-binary>
//   node confirm.mjs MODE http  http://127.0.0.1:PORT/mcp
// where MODE is 2026-07-28 or legacy.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, kind, target] = process.argv.slice(2);
const transport = kind === 'stdio'
  ? new StdioClientTransport({ command: target, args: ['--stdio'], stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(target));

const client = new Client(
  { name: 'confirm-ts', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } },
  },
);

// What the "user" answers next, and every form the server asked.
let nextAnswer = { action: 'accept', content: { confirm: true } };
const asked = [];
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params);
  return nextAnswer;
});

let failures = 0;
function check(label, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ts-confirm ${mode} ${kind} ${label}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

try {
  await client.connect(transport);

  const deleted = await client.callTool({ name: 'delete_order', arguments: { id: 2 } });
  check('an accepted confirmation deletes the order', deleted.content?.[0]?.text === 'Order 2 deleted.', deleted);
  const form = asked[0];
  check('the server asked with a form naming the order', asked.length === 1 &&
    /Delete order 2 of Grace/.test(form?.message ?? '') &&
    form?.requestedSchema?.properties?.confirm?.type === 'boolean' &&
    JSON.stringify(form?.requestedSchema?.required) === '["confirm"]', asked);

  const list = await client.callTool({ name: 'list_orders', arguments: {} });
  // The text carries the list in every era (handshake revisions allow only objects as
  // structured content).
  const ids = JSON.parse(list.content?.[0]?.text ?? '[]').map((o) => o.id);
  check('the deleted order is gone', JSON.stringify(ids) === '[1,3]', list);

  nextAnswer = { action: 'decline' };
  const kept = await client.callTool({ name: 'delete_order', arguments: { id: 3 } });
  check('a declined confirmation keeps the order',
    kept.content?.[0]?.text === 'Order 3 was not deleted: the user said no.', kept);

  nextAnswer = { action: 'accept', content: { confirm: false } };
  const unticked = await client.callTool({ name: 'delete_order', arguments: { id: 1 } });
  check('an unticked box keeps the order', /was not deleted/.test(unticked.content?.[0]?.text ?? ''), unticked);

  const after = await client.callTool({ name: 'list_orders', arguments: {} });
  check('orders 1 and 3 remain', JSON.stringify(JSON.parse(after.content?.[0]?.text ?? '[]').map((o) => o.id)) === '[1,3]', after);
} catch (e) {
  check('session', false, String(e?.stack ?? e));
} finally {
  await client.close().catch(() => {});
}
console.log(failures === 0 ? `ts-confirm ${mode} ${kind}: all checks passed` : `ts-confirm ${mode} ${kind}: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
