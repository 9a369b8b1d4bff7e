// A server we did not write, for the client's interop tests: built on the TypeScript SDK v2
// (`@modelcontextprotocol/server`), it serves 2026-07-28 and the handshake era from one
// factory, the way the SDK means dual-era servers to be written.
//
//   node dual-era.mjs --stdio
//   node dual-era.mjs --http 127.0.0.1:0 [--legacy-sessions]
//
// Over HTTP the handshake era is served the SDK's default way, statelessly: no
// Mcp-Session-Id, each request a fresh instance, so `confirm` cannot elicit there (the
// instance never saw the client's capabilities) and only closing the stream cancels. With
// `--legacy-sessions` the handshake era gets sessions instead (the SDK's documented
// composition: `isLegacyRequest` in front of a modern-only handler), and `confirm` sends
// elicitation/create on the call's stream.
//
// Over HTTP it prints `serving MCP over Streamable HTTP at http://HOST:PORT/mcp` on stderr,
// the phrase the example servers use, so scripts/test-all.sh's helpers find the port.
//
// Tools: `add {a,b}` (structured result), `fail` (isError), `slow {ms}` (waits; a cancelled
// call writes `cancelled <request id>` on stderr and counts), `cancelled_count`, `confirm`
// (asks the client yes/no: input_required in 2026-07-28, elicitation/create in the handshake
// era) and `filler_00`..`filler_11`; tools/list pages hold 5 tools, so a full listing takes
// several pages. Resource `text://greeting`; prompt `greet {name}`.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import {
    acceptedContent,
    createMcpHandler,
    inputRequired,
    isLegacyRequest,
    McpServer,
    WebStandardStreamableHTTPServerTransport
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const PAGE_SIZE = 5;
// Shared by every instance: over HTTP the factory runs once per request, so a count kept
// in an instance would never be seen by the `cancelled_count` call that asks for it.
let cancelled = 0;

function build({ era }) {
    const mcp = new McpServer({ name: 'dual-era', version: '1.0.0' });
    mcp.registerTool(
        'add',
        {
            description: 'Adds two numbers.',
            inputSchema: z.object({ a: z.number(), b: z.number() }),
            outputSchema: z.object({ sum: z.number() })
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
        { description: 'Waits ms milliseconds; a cancelled call is counted.', inputSchema: z.object({ ms: z.number() }) },
        async ({ ms }, ctx) => {
            const signal = ctx.mcpReq.signal;
            const finished = await new Promise(resolve => {
                const timer = setTimeout(() => resolve(true), ms);
                signal.addEventListener('abort', () => {
                    clearTimeout(timer);
                    resolve(false);
                });
            });
            if (!finished) {
                cancelled += 1;
                process.stderr.write(`cancelled ${JSON.stringify(ctx.mcpReq.id)}\n`);
            }
            return { content: [{ type: 'text', text: finished ? `waited ${ms} ms` : 'cancelled' }] };
        }
    );
    mcp.registerTool('cancelled_count', { description: 'How many slow calls were cancelled.' }, async () => ({
        content: [{ type: 'text', text: String(cancelled) }],
        structuredContent: { cancelled }
    }));
    const answer = z.object({ yes: z.boolean() });
    mcp.registerTool('confirm', { description: 'Asks the user yes or no.' }, async (ctx) => {
        let content;
        if (era === 'modern') {
            // Asked only once: a retry that carries a declined or cancelled answer ends
            // the call instead of asking again.
            if (ctx.mcpReq.inputResponses?.confirm === undefined) {
                return inputRequired({
                    inputRequests: { confirm: inputRequired.elicit({ message: 'Proceed?', requestedSchema: answer }) }
                });
            }
            content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
        } else {
            // Related to this call, so that over HTTP it travels on the call's own stream
            // (unrelated, it would go to the session's GET stream, which a client need not
            // open). `elicitInput` refuses when the client declared no elicitation, which is
            // what the stateless HTTP fallback sees, since it never saw initialize.
            const result = await ctx.mcpReq.elicitInput(
                {
                    mode: 'form',
                    message: 'Proceed?',
                    requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] }
                },
                { relatedRequestId: ctx.mcpReq.id }
            );
            content = result.action === 'accept' ? result.content : undefined;
        }
        const text = content === undefined ? 'no answer' : content.yes === true ? 'confirmed' : 'declined';
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
    mcp.registerPrompt('greet', { description: 'Greets someone.', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }]
    }));
    paginateTools(mcp.server);
    return mcp;
}

// McpServer lists every tool in one page; the client's cursor loop needs several. The
// cursor is the index of the page's first tool, as a string.
function paginateTools(server) {
    const all = server._requestHandlers.get('tools/list');
    server.setRequestHandler('tools/list', async (request, ctx) => {
        const { tools } = await all({ ...request, params: {} }, ctx);
        const start = Number(request.params?.cursor ?? 0);
        if (!Number.isSafeInteger(start) || start < 0 || start > tools.length) {
            throw Object.assign(new Error('Invalid cursor'), { code: -32602 });
        }
        const end = start + PAGE_SIZE;
        return end < tools.length ? { tools: tools.slice(start, end), nextCursor: String(end) } : { tools: tools.slice(start) };
    });
}

// The handshake era with sessions: a session's instance lives from its initialize to its
// DELETE, so it can send elicitation/create and receive the answer the client POSTs.
function legacyWithSessions() {
    const sessions = new Map();
    return async request => {
        const id = request.headers.get('mcp-session-id');
        if (id !== null) {
            const transport = sessions.get(id);
            if (transport === undefined) {
                return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
            }
            return transport.handleRequest(request);
        }
        const transport = new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: sid => sessions.set(sid, transport),
            onsessionclosed: sid => sessions.delete(sid)
        });
        await build({ era: 'legacy' }).connect(transport);
        return transport.handleRequest(request);
    };
}

function httpHandler(legacySessions) {
    if (!legacySessions) return createMcpHandler(build);
    const modern = createMcpHandler(build, { legacy: 'reject' });
    const legacy = legacyWithSessions();
    return {
        fetch: async (request, options) => ((await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request, options))
    };
}

const [mode, address, option] = process.argv.slice(2);
if (mode === '--stdio') {
    serveStdio(build, { onerror: error => process.stderr.write(`error: ${error.message}\n`) });
} else if (mode === '--http' && address && (option === undefined || option === '--legacy-sessions')) {
    const colon = address.lastIndexOf(':');
    const host = address.slice(0, colon);
    const port = Number(address.slice(colon + 1));
    const handler = toNodeHandler(httpHandler(option === '--legacy-sessions'));
    const validHost = localhostHostValidation();
    const validOrigin = localhostOriginValidation();
    const server = createServer((req, res) => {
        if (!validHost(req, res) || !validOrigin(req, res)) return;
        if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        handler(req, res);
    });
    server.listen(port, host, () => {
        const { port: bound } = server.address();
        process.stderr.write(`serving MCP over Streamable HTTP at http://${host}:${bound}/mcp\n`);
    });
} else {
    process.stderr.write('usage: node dual-era.mjs --stdio | --http HOST:PORT [--legacy-sessions]\n');
    process.exit(2);
}
