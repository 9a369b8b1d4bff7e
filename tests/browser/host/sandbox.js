// The sandbox proxy of the test host (MCP Apps, "Sandbox proxy"): a page on an origin of its
// own, served with the view's Content-Security-Policy as a header (the host put the policy
// in this page's address). It loads the view's HTML into an inner frame, which inherits that
// policy, and relays JSON-RPC messages between the host and the view, except its own
// `ui/notifications/sandbox-*` ones.
(() => {
  const host = new URLSearchParams(location.search).get('host');
  if (window.parent === window || !host) throw new Error('the sandbox runs in a frame of the host, whose origin its address names');
  const inner = document.createElement('iframe');
  inner.title = 'View';
  inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  document.body.append(inner);

  const reserved = (data) => typeof data?.method === 'string' && data.method.startsWith('ui/notifications/sandbox-');
  window.addEventListener('message', (event) => {
    if (event.source === window.parent) {
      if (event.origin !== host) return;
      if (event.data?.method === 'ui/notifications/sandbox-resource-ready') {
        const { html, sandbox } = event.data.params ?? {};
        if (typeof sandbox === 'string') inner.setAttribute('sandbox', sandbox);
        if (typeof html === 'string') inner.srcdoc = html;
      } else if (!reserved(event.data)) {
        inner.contentWindow?.postMessage(event.data, location.origin);
      }
    } else if (event.source === inner.contentWindow && event.origin === location.origin && !reserved(event.data)) {
      window.parent.postMessage(event.data, host);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, host);
})();
