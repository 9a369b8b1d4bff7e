// A server we did not write, for the client's interop tests: built on the TypeScript SDK v1
// (`@modelcontextprotocol/sdk`), it speaks only the handshake era (initialize, protocol
// versions up to 2025-11-25) and knows nothing of 2026-07-28, as most deployed servers do.
// A dual-era client must fall back to `initialize` against it.
//
//   node legacy-only.mjs --stdio
//   node legacy-only.mjs --http 127.0.0.1:0
//
// Over HTTP it serves sessions (`Mcp-Session-Id`, GET stream, DELETE), the usual v1 wiring,
// and prints `serving MCP over Streamable HTTP at http://HOST:PORT/mcp` on stderr, the
// phrase the example servers use, so scripts/test-all.sh's helpers find the port.
//
// The same tools as dual-era.mjs: `add {a,b}` (structured result), `fail` (isError),
// `slow {ms}` (a cancelled call writes `cancelled <request id>` on stderr and counts),
// `cancelled_count`, `confirm` (elicitation/create), `filler_00`..`filler_11`; tools/list
// pages hold 5 tools. Resource `text://greeting`; prompt `greet {name}`.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const PAGE_SIZE = 5;
// Shared by every session, so that any connection can ask how many calls were cancelled.
let cancelled = 0;

function build() {
    const mcp = new McpServer({ name: 'legacy-only', version: '1.0.0' });
    mcp.registerTool(
        'add',
        {
            description: 'Adds two numbers.',
            inputSchema: { a: z.number(), b: z.number() },
            outputSchema: { sum: z.number() }
        },
        async ({ a, b }) => ({
            content: [{ type: 'text', text: String(a + b) }],
            structuredContent: { sum: a + b }
        })
    );
    mcp.registerTool('fail', { description: 'Always fails, as a tool error.' }, async () => ({
        content: [{ type: 'text', text: 'this tool always fails' }],
        isError: true
    }));
    mcp.registerTool(
        'slow',
        { description: 'Waits ms milliseconds; a cancelled call is counted.', inputSchema: { ms: z.number() } },
        async ({ ms }, extra) => {
            const finished = await new Promise(resolve => {
                const timer = setTimeout(() => resolve(true), ms);
                extra.signal.addEventListener('abort', () => {
                    clearTimeout(timer);
                    resolve(false);
                });
            });
            if (!finished) {
                cancelled += 1;
                process.stderr.write(`cancelled ${JSON.stringify(extra.requestId)}\n`);
            }
            return { content: [{ type: 'text', text: finished ? `waited ${ms} ms` : 'cancelled' }] };
        }
    );
    mcp.registerTool('cancelled_count', { description: 'How many slow calls were cancelled.' }, async () => ({
        content: [{ type: 'text', text: String(cancelled) }],
        structuredContent: { cancelled }
    }));
    mcp.registerTool('confirm', { description: 'Asks the user yes or no.' }, async extra => {
        const result = await extra.sendRequest(
            {
                method: 'elicitation/create',
                params: {
                    mode: 'form',
                    message: 'Proceed?',
                    requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] }
                }
            },
            ElicitResultSchema
        );
        const text = result.action !== 'accept' ? 'no answer' : result.content?.yes === true ? 'confirmed' : 'declined';
        return { content: [{ type: 'text', text }] };
    });
    for (let i = 0; i < 12; i++) {
        const name = `filler_${String(i).padStart(2, '0')}`;
        mcp.registerTool(name, { description: 'Pads tools/list to several pages.' }, async () => ({
            content: [{ type: 'text', text: name }]
        }));
    }
    mcp.registerResource('greeting', 'text://greeting', { mimeType: 'text/plain' }, async uri => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello' }]
    }));
    mcp.registerPrompt('greet', { description: 'Greets someone.', argsSchema: { name: z.string() } }, ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }]
    }));
    paginateTools(mcp.server);
    return mcp;
}

// McpServer lists every tool in one page; the client's cursor loop needs several. The
// cursor is the index of the page's first tool, as a string.
function paginateTools(server) {
    const all = server._requestHandlers.get('tools/list');
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
        const { tools } = await all({ ...request, params: {} }, extra);
        const start = Number(request.params?.cursor ?? 0);
        if (!Number.isSafeInteger(start) || start < 0 || start > tools.length) {
            throw Object.assign(new Error('Invalid cursor'), { code: -32602 });
        }
        const end = start + PAGE_SIZE;
        return end < tools.length ? { tools: tools.slice(start, end), nextCursor: String(end) } : { tools: tools.slice(start) };
    });
}

async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
        return JSON.parse(text);
    } catch {
        return undefined;
    }
}

function refuse(res, status, message) {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null })
    );
}

const [mode, address] = process.argv.slice(2);
if (mode === '--stdio') {
    await build().connect(new StdioServerTransport());
} else if (mode === '--http' && address) {
    const colon = address.lastIndexOf(':');
    const host = address.slice(0, colon);
    const port = Number(address.slice(colon + 1));
    const sessions = new Map();
    const server = createServer(async (req, res) => {
        if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        const id = req.headers['mcp-session-id'];
        if (typeof id === 'string') {
            const transport = sessions.get(id);
            if (!transport) return refuse(res, 404, 'Session not found');
            const body = req.method === 'POST' ? await readJson(req) : undefined;
            return transport.handleRequest(req, res, body);
        }
        if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
        const body = await readJson(req);
        if (!isInitializeRequest(body)) return refuse(res, 400, 'Bad Request: No valid session ID provided');
        const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: sid => sessions.set(sid, transport)
        });
        transport.onclose = () => {
            if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await build().connect(transport);
        await transport.handleRequest(req, res, body);
    });
    server.listen(port, host, () => {
        const { port: bound } = server.address();
        process.stderr.write(`serving MCP over Streamable HTTP at http://${host}:${bound}/mcp\n`);
    });
} else {
    process.stderr.write('usage: node legacy-only.mjs --stdio | --http HOST:PORT\n');
    process.exit(2);
}
