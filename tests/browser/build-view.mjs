// Builds the ledger's statement view into the one self-contained HTML file the example
// serves (examples/ledger/views/statement.html, checked in and compiled into the binary, so
// that building the crate never needs Node): the page of examples/ledger/views/src with its
// script, and the `@modelcontextprotocol/ext-apps` App class it imports, bundled by esbuild
// and inlined. Nothing is fetched when the view runs.
//
//   node build-view.mjs           writes the file
//   node build-view.mjs --check   fails when the checked-in file is not what the source builds to
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const views = join(root, 'examples', 'ledger', 'views');
const source = join(views, 'src');
const target = join(views, 'statement.html');

function version(name) {
  return JSON.parse(readFileSync(join(here, 'node_modules', name, 'package.json'), 'utf8')).version;
}

const bundle = await build({
  entryPoints: [join(source, 'statement.js')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  // The view's source lives in the example; its dependencies are this project's.
  nodePaths: [join(here, 'node_modules')],
  // The licence notices of what is bundled stay in the file, at its end.
  legalComments: 'eof',
  logLevel: 'warning',
});
const script = bundle.outputFiles[0].text;
// Inside <script>, "</script" would end the element and "<!--" would change how the rest
// is parsed: refuse rather than rewrite code.
if (/<\/script|<!--/i.test(script)) {
  console.error('build-view: the bundle contains "</script" or "<!--", which cannot be inlined as is');
  process.exit(1);
}

const page = readFileSync(join(source, 'statement.html'), 'utf8');
const marker = '<!-- script -->';
if (page.split(marker).length !== 2) {
  console.error(`build-view: ${relative(root, join(source, 'statement.html'))} must hold ${marker} exactly once`);
  process.exit(1);
}
if (!page.startsWith('<!DOCTYPE html>\n')) {
  console.error('build-view: the page must start with <!DOCTYPE html> on a line of its own');
  process.exit(1);
}
const notice = `<!-- Generated from examples/ledger/views/src by tests/browser/build-view.mjs; do not edit.
     Bundles @modelcontextprotocol/ext-apps ${version('@modelcontextprotocol/ext-apps')} (MIT) and what it imports. -->\n`;
const html = page.replace('<!DOCTYPE html>\n', `<!DOCTYPE html>\n${notice}`)
  .replace(marker, () => `<script type="module">\n${script}</script>`);

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // A missing file differs from the build like any other.
  }
  if (current !== html) {
    console.error(`build-view: ${relative(root, target)} is not what its source builds to; run node tests/browser/build-view.mjs and commit the result`);
    process.exit(1);
  }
  console.log(`build-view: ${relative(root, target)} is up to date (${html.length} bytes)`);
} else {
  writeFileSync(target, html);
  console.log(`build-view: wrote ${relative(root, target)} (${html.length} bytes)`);
}
