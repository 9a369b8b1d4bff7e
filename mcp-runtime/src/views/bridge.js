// mcpView: the page side of an MCP Apps view (`mcp_runtime::VIEW_BRIDGE_JS`), in plain
// JavaScript for a page to inline in a <script> element: no build step, no dependency.
// It speaks the MCP Apps protocol (2026-01-26) with the host that renders the page:
// JSON-RPC 2.0 messages over window.parent.postMessage. The page's API:
//
//   const view = await mcpView.connect({ name, version, timeoutMs = 10000, autoResize = true })
//     ui/initialize, then ui/notifications/initialized. From the host's answer:
//     view.hostContext (theme, locale, ...), view.hostInfo, view.hostCapabilities,
//     view.protocolVersion.
//   view.onToolInput(fn)      fn(arguments) of the tool call the view shows
//   view.onToolResult(fn)     fn(result): the tool's CallToolResult (content, structuredContent)
//   view.onToolCancelled(fn)  fn(reason)
//   view.onContextChange(fn)  fn(hostContext), the changes merged in
//   view.onTeardown(fn)       fn(reason) before the host removes the view; it waits for fn's promise
//     Each on...(fn) adds fn and returns a function that removes it; fn set after its
//     notification came is called with the last one.
//   await view.callTool(name, args, { timeoutMs = 60000 })
//     tools/call through the host: the CallToolResult (a tool's error is a result with
//     isError: true; a refused call rejects)
//   await view.request(method, params, { timeoutMs = 60000 })   another request (ui/open-link, ...)
//   view.notify(method, params)   a notification (notifications/message, ...)
//   view.sendSize()               ui/notifications/size-changed with the page's size now
//     (autoResize sends it whenever the page's size changes)
//
// Every wait ends: a request the host does not answer in time rejects with an Error saying
// which, and an error answer rejects with its message (`code` and `data` on the Error).
// Messages that do not come from window.parent are ignored. Host data is handed to the
// page as values: nothing here evaluates it or writes it into the document.
(() => {
  'use strict';
  if (globalThis.mcpView) return; // included twice: the first one stays
  const PROTOCOL_VERSION = '2026-01-26';
  const CONTEXT_CHANGED = 'ui/notifications/host-context-changed';
  let connecting = null;

  function connect({ name = document.title || 'view', version = '0.0.0', timeoutMs = 10000, autoResize = true } = {}) {
    // One connection per page: later calls get the same one, until one fails.
    connecting ??= start(name, version, timeoutMs, autoResize).catch((error) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  async function start(name, version, timeoutMs, autoResize) {
    const host = window.parent;
    if (host === window) throw new Error('mcpView: this page is not in a frame; an MCP Apps host renders it');
    let origin = '*'; // the host's origin once it has answered (an opaque one stays '*')
    let nextId = 1;
    const teardowns = new Set(); // the page's functions to run before the host removes it
    const pending = new Map(); // request id -> { method, resolve, reject, timer }
    const handlers = new Map(); // notification method -> Set of the page's functions
    const last = new Map(); // notification method -> its last params, for a handler set later
    const context = {};

    const post = (message) => host.postMessage({ jsonrpc: '2.0', ...message }, origin);

    function request(method, params = {}, { timeoutMs: wait = 60000 } = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        post({ id, method, params }); // params that cannot be posted: the promise rejects here
        const timer = setTimeout(() => {
          pending.delete(id);
          post({ method: 'notifications/cancelled', params: { requestId: id, reason: 'timeout' } });
          reject(new Error(`mcpView: the host did not answer ${method} within ${wait} ms`));
        }, wait);
        pending.set(id, { method, resolve, reject, timer });
      });
    }

    function deliver(method, params) {
      if (method === CONTEXT_CHANGED && params && typeof params === 'object') Object.assign(context, params);
      last.set(method, params);
      for (const handler of handlers.get(method) ?? []) call(handler, method, params);
    }

    function call(handler, method, params) {
      try {
        handler(params);
      } catch (error) {
        console.error(`mcpView: the page's handler of ${method} failed`, error);
      }
    }

    function on(method, handler) {
      if (!handlers.has(method)) handlers.set(method, new Set());
      handlers.get(method).add(handler);
      if (last.has(method)) queueMicrotask(() => handlers.get(method).has(handler) && call(handler, method, last.get(method)));
      return () => handlers.get(method).delete(handler);
    }

    // The host's requests: ping, and teardown (answered when the page's handler is done).
    async function answer({ id, method, params }) {
      if (method !== 'ping' && method !== 'ui/resource-teardown') {
        return post({ id, error: { code: -32601, message: `the view does not handle ${method}` } });
      }
      try {
        if (method === 'ui/resource-teardown') await Promise.all([...teardowns].map((fn) => fn(params?.reason)));
        post({ id, result: {} });
      } catch (error) {
        post({ id, error: { code: -32000, message: String(error?.message ?? error) } });
      }
    }

    function receive(event) {
      if (event.source !== host) return; // only the host (through its sandbox proxy) speaks here
      if (origin !== '*' && event.origin !== origin) return;
      const message = event.data;
      if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
      if (typeof message.method === 'string') {
        if (message.id === undefined) deliver(message.method, message.params);
        else answer(message);
        return;
      }
      const waiting = pending.get(message.id);
      if (!waiting) return; // the answer to a request that timed out, or to none of ours
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (origin === '*' && event.origin !== 'null') origin = event.origin;
      if (message.error === undefined) return waiting.resolve(message.result);
      const { code, message: text, data } = message.error ?? {};
      waiting.reject(Object.assign(new Error(`mcpView: ${waiting.method} failed: ${text} (${code})`), { code, data }));
    }
    window.addEventListener('message', receive);

    let init;
    try {
      init = await request('ui/initialize', {
        appInfo: { name, version },
        appCapabilities: {},
        protocolVersion: PROTOCOL_VERSION,
      }, { timeoutMs });
      if (init === null || typeof init !== 'object') throw new Error('mcpView: the host answered ui/initialize with no result');
    } catch (error) {
      window.removeEventListener('message', receive);
      throw error;
    }
    Object.assign(context, init.hostContext);
    post({ method: 'ui/notifications/initialized', params: {} });

    // The page's size: the height of its content and the width of its frame.
    let sent = '';
    function sendSize(onlyIfChanged) {
      const root = document.documentElement;
      const before = root.style.height;
      root.style.height = 'max-content';
      const size = { width: Math.ceil(window.innerWidth), height: Math.ceil(root.getBoundingClientRect().height) };
      root.style.height = before;
      if (onlyIfChanged && JSON.stringify(size) === sent) return;
      sent = JSON.stringify(size);
      post({ method: 'ui/notifications/size-changed', params: size });
    }
    if (autoResize && typeof ResizeObserver === 'function') {
      let queued = false;
      const observer = new ResizeObserver(() => {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => {
          queued = false;
          sendSize(true);
        });
      });
      observer.observe(document.documentElement);
      if (document.body) observer.observe(document.body);
    }

    return Object.freeze({
      protocolVersion: init.protocolVersion,
      hostInfo: init.hostInfo,
      hostCapabilities: init.hostCapabilities ?? {},
      hostContext: context,
      onToolInput: (fn) => on('ui/notifications/tool-input', (params) => fn(params?.arguments ?? {})),
      onToolResult: (fn) => on('ui/notifications/tool-result', fn),
      onToolCancelled: (fn) => on('ui/notifications/tool-cancelled', (params) => fn(params?.reason)),
      onContextChange: (fn) => on(CONTEXT_CHANGED, () => fn(context)),
      onTeardown: (fn) => {
        teardowns.add(fn);
        return () => teardowns.delete(fn);
      },
      callTool: (toolName, args = {}, options) => request('tools/call', { name: toolName, arguments: args }, options),
      request,
      notify: (method, params = {}) => post({ method, params }),
      sendSize: () => sendSize(false),
    });
  }

  globalThis.mcpView = Object.freeze({ connect, PROTOCOL_VERSION });
})();
