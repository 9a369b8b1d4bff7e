// Drives the `ledger` example with the official TypeScript SDK v2 client: a transfer
// confirmed through the client's elicitation handler (input_required and a retry in
// 2026-07-28, the server's own elicitation/create in the handshake era), the same call
// retried with its idempotency key (one transfer in the database afterwards), and a
// transfer refused for insufficient funds, whose structured error the SDK accepts against
// the tool's output schema and hands over. Then the large results: `history` paged one
// transfer at a time to the end by following `nextCursor` (passed back as the ordinary
// `cursor` argument; ids never repeat and strictly decrease, the count matches `total`;
// the JSON text block stands in for structuredContent before 2025-06-18), a tampered
// cursor refused as a tool error that names the cursor, and `export_statement`'s CSV
// artifact found through its resource_link block (the text block that replaces it for
// 2025-03-26) and read with readResource (part by part when it has several): its header,
// one line per transfer, its size and its SHA-256. Last the statement view as a client
// without the MCP Apps extension sees it: `statement`'s plain result, and the app-only
// `statement_more` unlisted and refused (-32021). Usage:
//   node ledger.mjs MODE stdio <path-to-ledger-binary>      (a fresh LEDGER_DATABASE each run)
//   node ledger.mjs MODE http  http://127.0.0.1:PORT/mcp http://127.0.0.1:ISSUER_PORT
// MODE is 2026-07-28 (pinned) or legacy.
import { createHash, randomUUID } from 'node:crypto';
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

// A tool result's structured content or, before 2025-06-18 (no structuredContent), the
// same JSON in its second text block.
function structured(result) {
  if (result.structuredContent) return result.structuredContent;
  try {
    return JSON.parse(result.content?.[1]?.text ?? '');
  } catch {
    return undefined;
  }
}

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
  const mine = structured(history).items.filter((t) => t.memo === memo);
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

  // Large results. A second transfer, back the other way, so that acme-payroll has at
  // least two pages of one transfer even in a fresh database.
  const back = await client.callTool({
    name: 'transfer',
    arguments: { from: 'acme-payroll', to: 'acme-operating', amount_cents: 100, memo: `back ${memo}`, idempotencyKey: randomUUID() },
  });
  const backId = structured(back)?.id;
  check('a second transfer, back, is booked', back.isError !== true && Number.isInteger(backId), back);

  // history, one transfer a page, to the end: the cursor is an ordinary argument.
  const ids = [];
  let total;
  let firstPage;
  let cursor;
  let pages = 0;
  do {
    const page = await client.callTool({
      name: 'history',
      arguments: { account: 'acme-payroll', limit: 1, ...(cursor === undefined ? {} : { cursor }) },
    });
    const body = structured(page);
    pages++;
    if (page.isError === true || !Array.isArray(body?.items)) {
      check(`page ${pages} of history is a page`, false, page);
      break;
    }
    firstPage ??= { page, body };
    ids.push(...body.items.map((t) => t.id));
    if (total === undefined) total = body.total;
    cursor = body.nextCursor;
  } while (cursor !== undefined && pages <= 100000);
  const firstCursor = firstPage?.body?.nextCursor;
  check('history pages, one transfer each, to a page without nextCursor', cursor === undefined && ids.length >= 2 && pages === ids.length, { pages, ids });
  check("the first page's text says which item it holds and how to get the next",
    /^Items 1-1 of /.test(firstPage?.page?.content?.[0]?.text ?? '') && (firstPage?.page?.content?.[0]?.text ?? '').includes(`"cursor": "${firstCursor}"`),
    firstPage?.page?.content?.[0]);
  check('no transfer id repeats across the pages', new Set(ids).size === ids.length, ids);
  check('the ids strictly decrease (newest first)', ids.every((id, i) => i === 0 || id < ids[i - 1]), ids);
  check('the pages hold `total` transfers', total === undefined || ids.length === total, { total, count: ids.length });
  check('the pages include both transfers of this run', ids.includes(booked.structuredContent?.id) && ids.includes(backId), { ids, booked: booked.structuredContent?.id, backId });

  // A cursor altered in the middle is refused before the tool runs, as a tool error.
  if (firstCursor === undefined) {
    check('history gave a cursor to tamper with', false, firstPage);
  } else {
    const mid = Math.floor(firstCursor.length / 2);
    const tampered = firstCursor.slice(0, mid) + (firstCursor[mid] === 'A' ? 'B' : 'A') + firstCursor.slice(mid + 1);
    const refused = await client.callTool({ name: 'history', arguments: { account: 'acme-payroll', limit: 1, cursor: tampered } });
    const said = (refused.content ?? []).map((c) => c.text ?? '').join(' ');
    check('a tampered cursor is an isError result that names the cursor', refused.isError === true && /cursor/.test(said), refused);
  }

  // The statement: a link to a CSV artifact, read with resources/read.
  const exported = await client.callTool({ name: 'export_statement', arguments: { account: 'acme-payroll' } });
  const meta = exported.structuredContent;
  const link = exported.content?.find((c) => c.type === 'resource_link');
  const fallback = exported.content?.find((c) => c.type === 'text' && c.text.startsWith('Resource artifact://'));
  let uri;
  let size;
  let mime;
  let description;
  if (link) {
    ({ uri, size, mimeType: mime, description } = link);
  } else if (fallback) {
    // 2025-03-26: "Resource <uri> (<name>), <mime>, <size> bytes: <description>".
    const m = /^Resource (\S+) \((.*?)\), ([^,]+), (\d+) bytes: (.*)$/s.exec(fallback.text);
    [uri, mime, size, description] = [m?.[1], m?.[3], Number(m?.[4]), m?.[5]];
  }
  console.log(`note ${label} the statement came as ${link ? 'a resource_link block' : fallback ? 'the text fallback of a resource_link' : 'neither'} (protocol ${client.getNegotiatedProtocolVersion()})`);
  check('export_statement links to a text/csv artifact', exported.isError !== true && /^artifact:\/\/./.test(uri ?? '') && mime === 'text/csv' && Number.isInteger(size), exported);
  if (meta) {
    check('its structuredContent names the same artifact as the link', meta.uri === uri && meta.size === size && meta.mimeType === mime &&
      /^[0-9a-f]{64}$/.test(meta.sha256 ?? '') && Number.isInteger(meta.parts) && meta.parts >= 1, { meta, link });
  }
  const parts = meta?.parts ?? Number(/in (\d+) parts/.exec(description ?? '')?.[1] ?? 1);
  const chunks = [];
  for (let n = 0; n < parts && uri; n++) {
    const read = await client.readResource({ uri: parts > 1 ? `${uri}/part/${n}` : uri });
    const contents = read.contents?.[0] ?? {};
    chunks.push(contents.text !== undefined ? Buffer.from(contents.text, 'utf8') : Buffer.from(contents.blob ?? '', 'base64'));
  }
  const bytes = Buffer.concat(chunks);
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  check('the statement starts with its CSV header', lines[0] === 'id,from,to,amount_cents,memo,made_by,made_at_ms', lines[0]);
  check('the statement has one line per transfer after the header', lines.length === ids.length + 1, { lines: lines.length, transfers: ids.length });
  check('the statement is `size` bytes long', bytes.length === size, { bytes: bytes.length, size });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (meta) {
    check("the statement's SHA-256 is structuredContent's sha256", sha256 === meta.sha256, { sha256, meta: meta.sha256 });
  } else {
    check("the statement's SHA-256 is the one the link's description states", (description ?? '').includes(`SHA-256 ${sha256}`), { sha256, description });
  }

  // The statement view (MCP Apps): this client declares no `io.modelcontextprotocol/ui`
  // extension, so `statement` is an ordinary tool to it (a summary line and the page as
  // structured content, or the JSON text block before 2025-06-18), and the view's own
  // `statement_more` is neither listed nor callable.
  const statement = await client.callTool({ name: 'statement', arguments: { account: 'acme-payroll' } });
  const page = structured(statement);
  const rows = page?.transfers ?? [];
  check('statement answers with the plain result', statement.isError !== true && page?.account === 'acme-payroll' &&
    rows.length >= 2 && rows.length <= 20 && rows.every((t, i) => i === 0 || t.id < rows[i - 1].id), statement);
  check("statement's text says what it shows", /^\d+ transfer\(s\) of acme-payroll, newest first/.test(statement.content?.[0]?.text ?? ''), statement.content?.[0]);
  check('statement shows the transfers of this run', rows.some((t) => t.id === booked.structuredContent?.id) && rows.some((t) => t.id === backId), rows.map((t) => t.id));
  const names = (await client.listTools()).tools.map((t) => t.name);
  check('statement is listed and statement_more is not', names.includes('statement') && !names.includes('statement_more'), names);
  try {
    const more = await client.callTool({ name: 'statement_more', arguments: { account: 'acme-payroll' } });
    check('statement_more is refused to a client without the extension', false, more);
  } catch (e) {
    check('statement_more is refused to a client without the extension (-32021)', e?.code === -32021, { code: e?.code, message: e?.message });
  }
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
