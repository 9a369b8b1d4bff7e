// Drives the `ledger` example with the official TypeScript SDK v2 client: a transfer
// confirmed through the client's elicitation handler (input_required and a retry in
// 2026-07-28, the server's own elicitation/create in the handshake era), the same call
// retried with its idempotency key (one transfer in the database afterwards), and a
// transfer refused for insufficient funds, whose structured error the SDK accepts against
// the tool's output schema and hands over. Usage:
//   node ledger.mjs MODE stdio <path-to-ledger-binary>      (a fresh LEDGER_DATABASE each run)
//   node ledger.mjs MODE http  http://127.0.0.1:PORT/mcp http://127.0.0.1:ISSUER_PORT
// MODE is 2026-07-28 (pinned) or legacy.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';

const [mode, kind, target, issuer] = process.argv.slice(2);
const label = `ts-v2 ledger ${mode} ${kind}`;
let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} ${what}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

async function bearer() {
  const reply = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sub: 'alice', tenant: 'acme', scope: 'ledger:read ledger:write', resource: target }),
  });
  return (await reply.json()).access_token;
}

const scratch = mkdtempSync(join(tmpdir(), 'ledger-ts-'));
const transport = kind === 'stdio'
  ? new StdioClientTransport({
    command: target,
    args: ['--stdio'],
    stderr: 'inherit',
    env: {
      ...process.env,
      LEDGER_DATABASE: join(scratch, 'ledger.db'),
      MCP_PRINCIPAL: 'alice',
      MCP_TENANT: 'acme',
      MCP_SCOPES: 'ledger:read ledger:write',
    },
  })
  : new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${await bearer()}` } },
  });

const client = new Client(
  { name: 'ledger-ts', version: '1.0.0' },
  {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: mode === 'legacy' ? 'legacy' : { pin: mode } },
  },
);
const asked = [];
client.setRequestHandler('elicitation/create', async (request) => {
  asked.push(request.params);
  return { action: 'accept', content: { confirm: true } };
});

async function balance(account) {
  const listed = await client.callTool({ name: 'accounts', arguments: {} });
  return listed.structuredContent.accounts.find((a) => a.id === account).balance_cents;
}

try {
  await client.connect(transport);
  const before = await balance('acme-operating');
  const memo = `ts ${mode} ${kind} ${randomUUID()}`;
  const args = { from: 'acme-operating', to: 'acme-payroll', amount_cents: 1250, memo, idempotencyKey: randomUUID() };

  const booked = await client.callTool({ name: 'transfer', arguments: args });
  check('the confirmed transfer is booked', booked.isError !== true && booked.structuredContent?.amount_cents === 1250, booked);
  check('the user was asked once, with the amount', asked.length === 1 && /Transfer 12\.50 from acme-operating/.test(asked[0]?.message ?? ''), asked);

  // The answer was lost, say: the client calls again with the same key.
  const retried = await client.callTool({ name: 'transfer', arguments: args });
  check('the retry gets the transfer already booked', JSON.stringify(retried.structuredContent) === JSON.stringify(booked.structuredContent), retried);
  check('the retry asks nobody', asked.length === 1, asked);
  const history = await client.callTool({ name: 'history', arguments: { account: 'acme-payroll' } });
  const mine = history.structuredContent.transfers.filter((t) => t.memo === memo);
  check('one transfer in the database', mine.length === 1, history.structuredContent);
  check('the balance moved once', (await balance('acme-operating')) === before - 1250);

  // A business error: the SDK hands the details over. It checks structuredContent
  // against the output schema only for successes; the same validator shows the error
  // conforms too (S-184).
  const short = await client.callTool({ name: 'transfer', arguments: { from: 'acme-payroll', to: 'acme-operating', amount_cents: 99999999, memo: 'too much' } });
  const error = short.structuredContent?.error;
  check('insufficient funds is a tool error with its code', short.isError === true && error?.code === 'insufficient_funds', short);
  check('its detail carries the balance', error?.detail?.account === 'acme-payroll' &&
    error?.detail?.requested_cents === 99999999 && Number.isInteger(error?.detail?.balance_cents), error);
  check('its text says nothing was moved', /nothing was moved/.test(short.content?.[0]?.text ?? ''), short.content);
  const tool = (await client.listTools()).tools.find((t) => t.name === 'transfer');
  check('the published input schema offers the idempotency key', tool?.inputSchema?.properties?.idempotencyKey?.type === 'string', tool?.inputSchema);
  const conforms = new AjvJsonSchemaValidator().getValidator(tool?.outputSchema ?? {});
  const verdicts = [conforms(short.structuredContent), conforms(booked.structuredContent)];
  check("the error and the transfer both fit the tool's output schema", verdicts.every((v) => v.valid), verdicts);
} catch (e) {
  check('no unexpected error', false, String(e?.stack ?? e));
} finally {
  await client.close().catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${label}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${label}: all checks passed`);
process.exit(0);
