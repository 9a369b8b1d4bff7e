// Drives the quickstart example with an official TypeScript SDK client and checks what
// comes back. Usage:
//   node interop.mjs SDK MODE stdio <path-to-quickstart-binary>
//   node interop.mjs SDK MODE http  http://127.0.0.1:PORT/mcp
// SDK is `v2` (@modelcontextprotocol/client) or `v1` (@modelcontextprotocol/sdk, handshake
// era only). MODE is `2026-07-28` (pinned), `legacy` (the initialize handshake) or `auto`
// (server/discover first, the handshake if that fails); auto must land on 2026-07-28.

const [sdk, mode, kind, target] = process.argv.slice(2);

async function connect() {
  if (sdk === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = kind === 'stdio'
      ? new StdioClientTransport({ command: target, args: ['--stdio'], stderr: 'inherit' })
      : new StreamableHTTPClientTransport(new URL(target));
    // The client hands the negotiated revision to its transport; listen in on that.
    let negotiated;
    const hand = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version) => {
      negotiated = version;
      hand?.(version);
    };
    const client = new Client({ name: 'interop-ts-v1', version: '1.0.0' });
    await client.connect(transport);
    return { client, version: negotiated };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const transport = kind === 'stdio'
    ? new StdioClientTransport({ command: target, args: ['--stdio'], stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(target));
  const negotiation = mode === '2026-07-28' ? { pin: mode } : mode;
  const client = new Client(
    { name: 'interop-ts', version: '1.0.0' },
    { versionNegotiation: { mode: negotiation } },
  );
  await client.connect(transport);
  return { client, version: client.getNegotiatedProtocolVersion() };
}

const label = `ts-${sdk} ${mode} ${kind}`;
let failures = 0;
function check(what, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label} ${what}${ok ? '' : ': ' + JSON.stringify(detail)}`);
  if (!ok) failures++;
}

let client;
try {
  const connected = await connect();
  client = connected.client;
  // What each era must land on: the handshake for legacy clients, 2026-07-28 otherwise.
  const legacy = sdk === 'v1' || mode === 'legacy';
  check(`speaks ${legacy ? 'a handshake revision' : '2026-07-28'} (got ${connected.version})`,
    legacy ? /^2025-/.test(connected.version ?? '') : connected.version === '2026-07-28', connected.version);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check('tools/list names every tool in order', JSON.stringify(names) ===
    JSON.stringify(['add', 'add_note', 'convert_temperature', 'divide', 'list_notes']), names);
  const add = tools.find((t) => t.name === 'add');
  check('add has a described integer schema', add?.inputSchema?.properties?.a?.type === 'integer' &&
    add?.inputSchema?.properties?.a?.description === 'The first addend.', add?.inputSchema);

  // The handshake revisions allow only objects as structured content: the text carries it.
  const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  check('add returns 5 as text (and structured content where the revision allows it)',
    sum.content?.[0]?.text === '5' && sum.structuredContent === (legacy ? undefined : 5) && !sum.isError, sum);

  const temp = await client.callTool({ name: 'convert_temperature', arguments: { value: 100, to: 'fahrenheit' } });
  check('convert_temperature returns structured output',
    temp.structuredContent?.value === 212 && temp.structuredContent?.scale === 'fahrenheit', temp);

  const zero = await client.callTool({ name: 'divide', arguments: { dividend: 1, divisor: 0 } });
  check('a tool error is an isError result', zero.isError === true &&
    /divide by zero/.test(zero.content?.[0]?.text ?? ''), zero);

  const bad = await client.callTool({ name: 'add', arguments: { a: 'two' } });
  check('invalid arguments come back as an isError result', bad.isError === true &&
    /argument \/a/.test(bad.content?.[0]?.text ?? ''), bad);

  const { resourceTemplates } = await client.listResourceTemplates();
  check('resources/templates/list publishes notes://{number}',
    resourceTemplates?.length === 1 && resourceTemplates[0].uriTemplate === 'notes://{number}' &&
    resourceTemplates[0].name === 'note' && resourceTemplates[0].mimeType === 'text/plain', resourceTemplates);

  const text = `interop ts ${kind} ${Date.now()}`;
  const saved = await client.callTool({ name: 'add_note', arguments: { note: text } });
  const number = /You have (\d+) note/.exec(saved.content?.[0]?.text ?? '')?.[1];
  const read = await client.readResource({ uri: `notes://${number}` });
  check('resources/read of a templated URI returns the note', read.contents?.length === 1 &&
    read.contents[0].text === text && read.contents[0].uri === `notes://${number}` &&
    read.contents[0].mimeType === 'text/plain', read);

  let missing;
  try {
    await client.readResource({ uri: 'notes://999999' });
  } catch (e) {
    missing = e;
  }
  // The handshake revisions' code is -32002; SDK v2 reports either code as its
  // ResourceNotFoundError, whose code is -32602.
  const notFound = sdk === 'v1' ? -32002 : -32602;
  check(`an unknown resource is ${notFound} with the URI in data`, missing?.code === notFound &&
    missing?.data?.uri === 'notes://999999', String(missing));

  const { prompts } = await client.listPrompts();
  check('prompts/list describes explain_conversion with required arguments',
    prompts?.[0]?.name === 'explain_conversion' &&
    JSON.stringify(prompts[0].arguments?.map((a) => [a.name, a.required])) === '[["value",true],["to",true]]', prompts);

  const prompt = await client.getPrompt({ name: 'explain_conversion', arguments: { value: '21.5', to: 'fahrenheit' } });
  check('prompts/get fills the arguments into the messages',
    prompt.messages?.[0]?.role === 'user' &&
    prompt.messages[0].content?.text === 'Convert 21.5 degrees to Fahrenheit with the convert_temperature tool.', prompt);

  const done = await client.complete({ ref: { type: 'ref/prompt', name: 'explain_conversion' }, argument: { name: 'to', value: 'c' } });
  check('completion/complete suggests matching values', JSON.stringify(done.completion?.values) === '["celsius"]', done);

  let unknown;
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
  } catch (e) {
    unknown = e;
  }
  check('an unknown tool is a -32602 protocol error', unknown?.code === -32602, String(unknown));
} catch (e) {
  check('session', false, String(e?.stack ?? e));
} finally {
  await client?.close().catch(() => {});
}
console.log(failures === 0 ? `${label}: all checks passed` : `${label}: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
