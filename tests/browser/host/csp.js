// The Content-Security-Policy a host gives a view, built from the domains its resource
// declares in `_meta.ui.csp` (MCP Apps, "UI Resource Format", Host Behavior): with nothing
// declared, the restrictive default the specification gives; each declared list opens only
// its own directives; plugins are always blocked, nested frames unless declared, and
// `base-uri` stays 'self'. An entry that is not a plain origin is refused, never passed on:
// a quote, a semicolon or a space would smuggle in sources or directives of its own.

const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:[0-9]{1,5})?$/i;

function origins(csp, key) {
  const list = csp?.[key];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`_meta.ui.csp.${key} is not a list`);
  for (const entry of list) {
    if (typeof entry !== 'string' || !ORIGIN.test(entry)) {
      throw new Error(`_meta.ui.csp.${key} holds ${JSON.stringify(entry)}, which is not an origin`);
    }
  }
  return list;
}

export function viewPolicy(csp) {
  const resources = origins(csp, 'resourceDomains');
  const connect = origins(csp, 'connectDomains');
  const frames = origins(csp, 'frameDomains');
  const bases = origins(csp, 'baseUriDomains');
  const directives = [
    "default-src 'none'",
    ["script-src 'self' 'unsafe-inline'", ...resources].join(' '),
    ["style-src 'self' 'unsafe-inline'", ...resources].join(' '),
    ["img-src 'self' data:", ...resources].join(' '),
    ["media-src 'self' data:", ...resources].join(' '),
    ...(resources.length > 0 ? [['font-src', ...resources].join(' ')] : []),
    connect.length > 0 ? ['connect-src', ...connect].join(' ') : "connect-src 'none'",
    frames.length > 0 ? ['frame-src', ...frames].join(' ') : "frame-src 'none'",
    bases.length > 0 ? ['base-uri', ...bases].join(' ') : "base-uri 'self'",
    "object-src 'none'",
  ];
  return directives.join('; ');
}
