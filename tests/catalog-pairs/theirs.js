#!/usr/bin/env node
// Runs openapi-diff (Atlassian, pinned in package.json) through its Node API on two
// OpenAPI documents and prints every difference it finds as one JSON object:
//
//   node theirs.js OLD.json NEW.json
//   -> { tool: "openapi-diff", version, changes: [{class, code, ops, location, detail, signature}] }
//
// class is openapi-diff's own (breaking, non-breaking, unclassified). ops names the
// operations the difference belongs to ({method, path}, method in lower case, path as the
// document writes it), so that scripts/lib/catalog_pairs.py can map them onto the
// gateway's tool names. A difference under `components` only has no ops. On an error
// (a circular $ref, OpenAPI 3.1) it prints the message to stderr and exits with 2.
'use strict';
const fs = require('fs');
const openapiDiff = require('openapi-diff');
const { version } = require('openapi-diff/package.json');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const [oldPath, newPath] = process.argv.slice(2);
if (!oldPath || !newPath) {
  process.stderr.write('usage: node theirs.js OLD.json NEW.json\n');
  process.exit(2);
}
const oldText = fs.readFileSync(oldPath, 'utf8');
const newText = fs.readFileSync(newPath, 'utf8');
const oldDoc = JSON.parse(oldText);
const newDoc = JSON.parse(newText);

// openapi-diff writes locations as dotted paths ("paths./a/b.c.get.requestBody..."), and a
// path may hold dots itself, so the longest path of the document that fits wins.
function splitLocation(location, doc) {
  if (!location || !location.startsWith('paths.')) return null;
  const tail = location.slice('paths.'.length);
  let best = null;
  for (const p of Object.keys(doc.paths || {})) {
    if ((tail === p || tail.startsWith(p + '.')) && (!best || p.length > best.length)) best = p;
  }
  if (!best) return { path: tail.split('.')[0], method: null };
  const rest = tail.slice(best.length + 1).split('.').filter((s) => s);
  return { path: best, method: METHODS.includes(rest[0]) ? rest[0] : null };
}

// The operations a difference's entities belong to: the one named in the location, or,
// for a whole path added or removed, each operation of that path.
function opsOf(entityDetails, doc) {
  const ops = [];
  for (const d of entityDetails || []) {
    const loc = splitLocation(d.location, doc);
    if (!loc) continue;
    if (loc.method) ops.push({ method: loc.method, path: loc.path });
    else if (d.value && typeof d.value === 'object') {
      for (const m of METHODS) if (d.value[m]) ops.push({ method: m, path: loc.path });
    }
  }
  return ops;
}

// Enough of json-schema-diff's difference schema to tell the common causes apart: its
// top-level type, and where a member may now hold "any type but the one declared" (a
// typed property added to, or removed from, an open object: a type list of 4 or more).
function signature(schema) {
  const anyBut = [];
  const walk = (x, p, depth) => {
    if (!x || typeof x !== 'object' || depth > 40 || anyBut.length > 20) return;
    if (Array.isArray(x.type) && x.type.length >= 4) anyBut.push(p);
    for (const k of Object.keys(x)) walk(x[k], p + '/' + k, depth + 1);
  };
  walk(schema, '', 0);
  return { topType: schema && typeof schema === 'object' ? schema.type : schema, anyBut };
}

(async () => {
  let result;
  try {
    result = await openapiDiff.diffSpecs({
      sourceSpec: { content: oldText, location: oldPath, format: 'openapi3' },
      destinationSpec: { content: newText, location: newPath, format: 'openapi3' },
    });
  } catch (e) {
    process.stderr.write(`openapi-diff ${version} failed: ${String((e && (e.message || e)) || e).slice(0, 2000)}\n`);
    process.exit(2);
  }
  const changes = [];
  for (const d of [
    ...(result.breakingDifferences || []),
    ...(result.nonBreakingDifferences || []),
    ...(result.unclassifiedDifferences || []),
  ]) {
    const seen = new Set();
    const ops = [
      ...opsOf(d.sourceSpecEntityDetails, oldDoc),
      ...opsOf(d.destinationSpecEntityDetails, newDoc),
    ].filter((o) => {
      const k = o.method + ' ' + o.path;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const first = (d.sourceSpecEntityDetails || [])[0] || (d.destinationSpecEntityDetails || [])[0] || {};
    const diff = d.details && d.details.differenceSchema;
    changes.push({
      class: d.type,
      code: d.code,
      ops,
      location: first.location,
      signature: diff !== undefined ? signature(diff) : undefined,
      detail: diff !== undefined ? JSON.stringify(diff).slice(0, 400) : undefined,
    });
  }
  process.stdout.write(JSON.stringify({ tool: 'openapi-diff', version, changes }, null, 1) + '\n');
})();
