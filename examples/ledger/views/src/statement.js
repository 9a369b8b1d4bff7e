// The ledger's statement view: the transfers of one account as a table and a small chart,
// drawn from the structured result of the `statement` tool that the host hands over, and
// more rows fetched on demand through the app-only tool `statement_more`. It talks only to
// its host (postMessage, through the official MCP Apps `App` class); it makes no network
// request of its own, so the resource declares nothing it needs.
//
// Bundled with its dependencies into one self-contained HTML file by
// tests/browser/build-view.mjs; the ledger serves that file as `ui://ledger/statement`.
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';

const rows = document.getElementById('rows');
const chart = document.getElementById('chart');
const title = document.getElementById('title');
const summary = document.getElementById('summary');
const status = document.getElementById('status');
const loadMore = document.getElementById('load-more');

const SVG = 'http://www.w3.org/2000/svg';

/** What the view shows: the account, the transfers loaded so far (newest first), the cursor of the next page. */
const state = { account: undefined, transfers: [], cursor: undefined, locale: undefined, timeZone: undefined };

const app = new App({ name: 'ledger-statement', version: '1.0.0' });

app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.account === 'string') {
    state.account = args.account;
    title.textContent = `Statement of ${args.account}`;
    summary.textContent = 'Loading…';
  }
};

app.ontoolresult = (result) => {
  const page = pageOf(result);
  if (page.error !== undefined) {
    summary.textContent = page.error;
    return;
  }
  state.account = page.account;
  state.transfers = [];
  rows.replaceChildren();
  append(page);
};

app.onhostcontextchanged = (context) => applyContext(context);

loadMore.addEventListener('click', async () => {
  if (state.cursor === undefined || state.account === undefined) return;
  loadMore.disabled = true;
  status.textContent = 'Loading more…';
  try {
    const result = await app.callServerTool({
      name: 'statement_more',
      arguments: { account: state.account, cursor: state.cursor },
    });
    const page = pageOf(result);
    if (page.error !== undefined) {
      status.textContent = page.error;
    } else {
      append(page);
      status.textContent = `${page.transfers.length} more loaded.`;
    }
  } catch (error) {
    status.textContent = `Could not load more: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    loadMore.disabled = false;
  }
});

/** A page of the statement from a tool result, or the error to show instead. */
function pageOf(result) {
  if (result?.isError === true) {
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(' ');
    return { error: text || 'The ledger refused the statement.' };
  }
  const body = result?.structuredContent;
  if (typeof body?.account !== 'string' || !Array.isArray(body.transfers) || !body.transfers.every(isTransfer)) {
    return { error: 'The statement came without its structured content.' };
  }
  return { account: body.account, transfers: body.transfers, nextCursor: typeof body.nextCursor === 'string' ? body.nextCursor : undefined };
}

function isTransfer(t) {
  return Number.isSafeInteger(t?.id) && typeof t.from === 'string' && typeof t.to === 'string' &&
    Number.isSafeInteger(t.amount_cents) && typeof t.memo === 'string' && Number.isFinite(t.made_at_ms);
}

/** Adds a page: its rows under the ones shown, the chart redrawn, the button kept while there is more. */
function append(page) {
  const known = new Set(state.transfers.map((t) => t.id));
  const fresh = page.transfers.filter((t) => !known.has(t.id));
  state.transfers.push(...fresh);
  state.cursor = page.nextCursor;
  title.textContent = `Statement of ${state.account}`;
  for (const transfer of fresh) rows.append(row(transfer));
  drawChart();
  const net = state.transfers.reduce((sum, t) => sum + signed(t), 0);
  summary.textContent = `${state.transfers.length} transfer${state.transfers.length === 1 ? '' : 's'} shown, net ${money(net)}` +
    (state.cursor === undefined ? '' : ' (more available)');
  loadMore.hidden = state.cursor === undefined;
}

/** The amount as the account sees it: positive when money came in. */
function signed(transfer) {
  return transfer.to === state.account && transfer.from !== state.account ? transfer.amount_cents : -transfer.amount_cents;
}

function money(cents) {
  return new Intl.NumberFormat(state.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' })
    .format(cents / 100);
}

function when(ms) {
  return new Intl.DateTimeFormat(state.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: state.timeZone })
    .format(new Date(ms));
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function row(transfer) {
  const tr = document.createElement('tr');
  tr.dataset.transferId = String(transfer.id);
  const amount = signed(transfer);
  tr.append(
    cell(when(transfer.made_at_ms), 'when'),
    cell(transfer.memo),
    cell(`${transfer.from} → ${transfer.to}`, 'route'),
    cell(money(amount), `num ${amount >= 0 ? 'in' : 'out'}`),
  );
  return tr;
}

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** Bars of the amounts in and out, oldest first, and a line of the running net change. */
function drawChart() {
  const keep = chart.querySelector('title');
  chart.replaceChildren(keep);
  const width = 600;
  const height = 120;
  const middle = height / 2;
  const oldestFirst = [...state.transfers].reverse();
  const amounts = oldestFirst.map(signed);
  let running = 0;
  const net = amounts.map((a) => (running += a));
  const largest = Math.max(1, ...amounts.map(Math.abs), ...net.map(Math.abs));
  const scale = (middle - 6) / largest;
  const slot = width / Math.max(amounts.length, 1);
  const gap = Math.min(2, slot / 4);
  oldestFirst.forEach((transfer, i) => {
    const h = Math.max(1, Math.abs(amounts[i]) * scale);
    const bar = svg('rect', {
      x: i * slot + gap,
      y: amounts[i] >= 0 ? middle - h : middle,
      width: Math.max(1, slot - 2 * gap),
      height: h,
      class: amounts[i] >= 0 ? 'in' : 'out',
    });
    const tip = svg('title', {});
    tip.textContent = `${transfer.memo}: ${money(amounts[i])}`;
    bar.append(tip);
    chart.append(bar);
  });
  chart.append(svg('line', { x1: 0, x2: width, y1: middle, y2: middle, class: 'axis', 'vector-effect': 'non-scaling-stroke' }));
  if (net.length > 0) {
    const points = net.map((value, i) => `${(i + 0.5) * slot},${middle - value * scale}`).join(' ');
    chart.append(svg('polyline', { points, class: 'net', 'vector-effect': 'non-scaling-stroke' }));
  }
}

function applyContext(context) {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.locale) state.locale = context.locale;
  if (context?.timeZone) state.timeZone = context.timeZone;
}

try {
  await app.connect();
  applyContext(app.getHostContext());
} catch (error) {
  summary.textContent = `Could not reach the host: ${error instanceof Error ? error.message : String(error)}`;
}
