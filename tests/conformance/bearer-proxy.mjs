// A loopback reverse proxy that adds `Authorization: Bearer <token>` to every request it
// forwards, for running the conformance suite (which sends no token) against a server
// that requires one. Responses, streams included, are passed through untouched; the Host
// and Origin headers the suite sends reach the server as sent.
//
//   node bearer-proxy.mjs <listen port> <target origin, e.g. http://127.0.0.1:8080> <token>
import http from 'node:http';

const [port, target, token] = process.argv.slice(2);
if (!port || !target || !token) {
  console.error('usage: bearer-proxy.mjs PORT TARGET TOKEN');
  process.exit(2);
}
const upstream = new URL(target);

http
  .createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (reply) => {
        res.writeHead(reply.statusCode, reply.headers);
        reply.pipe(res);
      },
    );
    forward.on('error', (e) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bearer-proxy: ${e.message}`);
    });
    req.pipe(forward);
    // A client closing its request (the suite cancels a stream) closes the upstream too.
    res.on('close', () => forward.destroy());
  })
  .listen(Number(port), '127.0.0.1', () => console.error(`bearer-proxy on ${port} -> ${target}`));
