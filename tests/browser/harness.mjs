// What the browser tests share: their checks and the count of them, the test host page
// (host/) served with its /mcp passed through to the MCP server under test, the sandbox
// proxy's origin, and the errors a page reports.
import { readFileSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..');
/** Where the tests write their screenshots and recordings. */
export const shots = join(root, 'target', 'views');

/** Checks that print as `ok  NAME what` or `FAIL NAME what: detail`, and a count of them:
 * `finish()` prints it and exits, with 1 when a check failed. */
export function checks(name) {
  let failures = 0;
  let passes = 0;
  function check(what, ok, detail) {
    const said = ok ? '' : `: ${JSON.stringify(detail) ?? ''}`.slice(0, 2000);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} ${what}${said}`);
    if (ok) passes++;
    else failures++;
  }
  return {
    check,
    /** An error the test did not expect, as a failed check with its stack and cause. */
    unexpected(e) {
      check('no unexpected error', false, `${e?.stack ?? e}${e?.cause ? `\ncause: ${e.cause?.stack ?? e.cause}` : ''}`);
    },
    finish() {
      console.log(`${name}: ${passes} passed, ${failures} failed`);
      process.exit(failures > 0 ? 1 : 0);
    },
  };
}

const servers = [];

/** An HTTP server on a port of its own on 127.0.0.1; `closeServers()` closes them all. */
export function serve(handler) {
  return new Promise((resolve) => {
    const server = createServer(handler);
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

export function closeServers() {
  for (const server of servers.splice(0)) server.close();
}

export function file(res, path, type, headers = {}) {
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store', ...headers }).end(readFileSync(path));
}

/** The host page (host/host.html, host/host.js built with esbuild) and its /mcp, passed
 * through to `mcpUrl` so that the page's requests stay on its own origin (the servers send
 * no CORS headers). `headers` are added to each request passed through: an `authorization`
 * there makes the host call the server as that key's or token's holder. */
export async function hostServer({ mcpUrl, headers: extra = {} }) {
  const hostScript = (await build({
    entryPoints: [join(here, 'host', 'host.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'warning',
  })).outputFiles[0].text;
  const upstream = new URL(mcpUrl);
  return serve((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/host.html') return file(res, join(here, 'host', 'host.html'), 'text/html; charset=utf-8');
    if (path === '/host.js') return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(hostScript);
    if (path === '/mcp') {
      const headers = { ...req.headers, ...extra, host: upstream.host };
      const out = forward({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      });
      out.on('error', (e) => res.writeHead(502).end(String(e)));
      return req.pipe(out);
    }
    res.writeHead(404).end();
  });
}

/** The sandbox proxy's origin: host/sandbox.html, served with the policy the host built
 * (each one is kept in `policies`), and with the script `before` (if given, at /before.js)
 * run ahead of the proxy's own. */
export async function sandboxServer({ before } = {}) {
  const policies = [];
  const page = before === undefined ? undefined : readFileSync(join(here, 'host', 'sandbox.html'), 'utf8')
    .replace('<script src="sandbox.js">', '<script src="before.js"></script>\n<script src="sandbox.js">');
  const served = await serve((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/sandbox.js') return file(res, join(here, 'host', 'sandbox.js'), 'text/javascript; charset=utf-8');
    if (url.pathname === '/before.js' && before !== undefined) return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(before);
    if (url.pathname === '/sandbox.html') {
      const policy = url.searchParams.get('csp');
      if (!policy || /[\r\n]/.test(policy)) return res.writeHead(400).end('no policy, no view');
      policies.push(policy);
      if (page === undefined) return file(res, join(here, 'host', 'sandbox.html'), 'text/html; charset=utf-8', { 'content-security-policy': policy });
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': policy })
        .end(page);
    }
    res.writeHead(404).end();
  });
  return { ...served, policies };
}

/** The errors of a page as they come: script errors of any frame, console errors (but those
 * matching `ignored`), and failed requests. A server may decline the client's optional GET
 * stream with 405 (Streamable HTTP); that is no failure. */
export function watchErrors(page, ignored = /Failed to load resource/) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !ignored.test(m.text())) errors.push(m.text());
  });
  page.on('response', (r) => {
    const declined = r.request().method() === 'GET' && r.status() === 405 && new URL(r.url()).pathname === '/mcp';
    if (r.status() >= 400 && !declined) errors.push(`${r.request().method()} ${r.url()}: ${r.status()}`);
  });
  return errors;
}

/** The host page's address: what it calls, in which era, with which sandbox origin. */
export function hostPage(origin, settings) {
  return `${origin}/host.html#${new URLSearchParams(settings)}`;
}

// Waits up to 15 s for the first element `locator` finds; else records the check `what` as
// failed, with what the test host saw (window.host), and stops the test.
export async function waitShown(locator, page, check, what) {
  try {
    await locator.first().waitFor({ timeout: 15000 });
  } catch {
    check(what, false, await page.evaluate(() => window.host));
    throw new Error(`${what}: not within 15 s`);
  }
}
