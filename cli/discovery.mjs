#!/usr/bin/env node
// discovery.mjs: the official command-line client of the public discovery API.
// Node.js >= 18, no dependencies. Run `node discovery.mjs --help` for usage.
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The server bakes the site's base URL and its version into the copy it
// serves; the repository copy keeps the placeholders.
const BAKED_BASE_URL = "__DISCOVERY_BASE_URL__";
const BAKED_VERSION = "__DISCOVERY_VERSION__";

const { stdout, stderr, env } = process;
const isPlaceholder = (s) => /^__DISCOVERY_[A-Z_]+__$/.test(s);
const VERSION = isPlaceholder(BAKED_VERSION) ? 'dev' : BAKED_VERSION;
const DEFAULT_BASE_URL = isPlaceholder(BAKED_BASE_URL) ? '' : BAKED_BASE_URL;
const TIMEOUT_MS = 30_000;
const MAX_RETRY_WAIT_S = 10;
const SELF = `node ${basename(process.argv[1] || 'discovery.mjs')}`;

const USAGE = `discovery-cli ${VERSION}: read the public discovery API from the command line.

Usage:
  ${SELF} <command> [options]

Commands:
  profile            the profile: about, key facts, recognition, contact, links
  insights           every published insight: date, topic, title and slug
  insights <slug>    one insight: title, metadata and its Markdown body
  health             the service's health and version
  dns-aid            the DNS-AID records that publish a site's MCP server in DNS

dns-aid reads any site's AI catalog and MCP server card, not only this one's.

Options:
  --base-url <url>   the site's base URL, e.g. https://example.com
                     (also env DISCOVERY_BASE_URL; default: ${DEFAULT_BASE_URL || 'none in this copy'})
  --json             print the API's JSON response unchanged (for jq);
                     errors still go to stderr as text
  --token <bearer>   send "Authorization: Bearer <bearer>" (optional; no token
                     is needed for any command)
  --help             show this help
  --version          print the client's version

Options may stand before or after the command; --name=value works too.
On a terminal the output is laid out to its width, in colour (NO_COLOR turns
colour off). Piped or redirected, it is plain and whole, for scripts: the
insights list is one tab-separated line per insight (date, topic, title,
slug), health is one "name<TAB>value" line per field, and text is not wrapped.
Exit codes: 0 ok, 1 API or network error, 2 usage error.
`;

/** An error the client reports in one message, exiting with `exitCode`. */
function failure(message, exitCode = 1) {
  return Object.assign(new Error(message), { exitCode, expected: true });
}

/** A usage error: the message, then the usage text, exit code 2. */
function usageError(message) {
  return failure(`discovery: ${message}\n\n${USAGE}`, 2);
}

/**
 * Parses the command line. Flags may come before or after the command.
 * @param {string[]} args the arguments after the script name
 * @returns {{command?: string, rest: string[], baseUrl?: string, token?: string,
 *   json: boolean, help: boolean, version: boolean}}
 */
function parseArgs(args) {
  const opts = { rest: [], json: false, help: false, version: false };
  const positional = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') { positional.push(...args.slice(i + 1)); break; }
    if (!arg.startsWith('-') || arg === '-') { positional.push(arg); continue; }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (name === '--base-url' || name === '--token') {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') throw usageError(`${name} needs a value`);
      opts[name === '--token' ? 'token' : 'baseUrl'] = value;
    } else if (['--json', '--help', '-h', '--version'].includes(name)) {
      if (inline !== undefined) throw usageError(`${name} takes no value`);
      opts[{ '--json': 'json', '--help': 'help', '-h': 'help', '--version': 'version' }[name]] = true;
    } else {
      throw usageError(`unknown option ${JSON.stringify(arg)}`);
    }
  }
  [opts.command, ...opts.rest] = positional;
  return opts;
}

/**
 * Picks the base URL: the flag, then DISCOVERY_BASE_URL, then the baked-in
 * default. Exits with code 2 when there is none or it is not an http(s) URL.
 * @returns {string} the base URL without a trailing slash
 */
function resolveBaseUrl(flag) {
  const raw = flag || env.DISCOVERY_BASE_URL || DEFAULT_BASE_URL;
  if (!raw) {
    throw failure('discovery: no base URL. This copy of the client has no site built in: pass ' +
      '--base-url <url> or set DISCOVERY_BASE_URL, e.g. --base-url https://example.com\n' +
      '(the copy a site serves under /cli/ knows its own address). See --help.', 2);
  }
  let url;
  try { url = new URL(raw); } catch { url = null; }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash) {
    throw failure(`discovery: invalid base URL ${JSON.stringify(raw)}: expected http(s)://host[:port]`, 2);
  }
  return url.href.replace(/\/+$/, '');
}

/** Seconds a Retry-After header asks for (delta-seconds or HTTP date), or null. */
function retryAfterSeconds(value) {
  if (value == null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * GETs `url` and reads the whole body. A 429 with a Retry-After of at most
 * ten seconds is waited out and retried once.
 * @returns {Promise<{res: Response, body: Buffer}>}
 */
async function get(url, token) {
  const headers = { Accept: 'application/json', 'User-Agent': `discovery-cli/${VERSION}` };
  if (token) headers.Authorization = `Bearer ${token}`;
  for (let attempt = 1; ; attempt++) {
    let res, body;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      throw failure(`discovery: request to ${url} failed: ${networkReason(err)}`);
    }
    const wait = retryAfterSeconds(res.headers.get('retry-after'));
    if (res.status === 429 && attempt === 1 && wait !== null && wait <= MAX_RETRY_WAIT_S) {
      stderr.write(`discovery: rate limited; retrying in ${wait} s\n`);
      await sleep(wait * 1000);
      continue;
    }
    return { res, body };
  }
}

/** A short reason for a failed fetch, from the error and its cause. */
function networkReason(err) {
  if (err?.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = err?.cause;
  if (cause?.message === 'bad port') return 'fetch refuses to connect to this port (a blocked port)';
  let reason = cause?.message || err?.message || String(err);
  if (cause?.code && !reason.includes(cause.code)) reason = `${cause.code}: ${reason}`;
  return clean(reason);
}

/** The failure for an unsuccessful response: the problem's title, detail and hint. */
function apiFailure(url, res, body) {
  let problem = null;
  try { problem = JSON.parse(body.toString('utf8')); } catch { /* not JSON */ }
  const lines = [];
  if (problem && typeof problem === 'object' && problem.title) {
    lines.push(`Error: ${clean(problem.title)} (HTTP ${res.status})`);
    if (problem.detail) lines.push(`  ${clean(problem.detail)}`);
    if (problem.hint) lines.push(`  Hint: ${clean(problem.hint)}`);
  } else {
    lines.push(`Error: HTTP ${res.status} ${clean(res.statusText)} from ${url}`);
    const text = clean(body.toString('utf8')).trim().slice(0, 200);
    if (text) lines.push(`  ${text.replace(/\s+/g, ' ')}`);
  }
  if (res.status === 429) {
    const wait = retryAfterSeconds(res.headers.get('retry-after'));
    lines.push(wait === null ? '  Retry later.'
      : `  Retry after ${wait} s (at ${new Date(Date.now() + wait * 1000).toLocaleTimeString()}).`);
  }
  return failure(lines.join('\n'));
}

/**
 * Fetches an API path and checks the answer is a successful JSON document.
 * @returns {Promise<{body: Buffer, data: any}>} the raw body and its parse
 */
async function fetchJson(base, path, token) {
  const url = base + path;
  const { res, body } = await get(url, token);
  if (!res.ok) throw apiFailure(url, res, body);
  try {
    return { body, data: JSON.parse(body.toString('utf8')) };
  } catch {
    throw failure(`discovery: ${url} did not answer with JSON (Content-Type: ` +
      `${res.headers.get('content-type') || 'none'}). Is ${base} the site's base URL?`);
  }
}

// ---- Human output -----------------------------------------------------------

/** Removes control characters (terminal escapes) from text the server sent. */
function clean(value) {
  // Matching control characters is the point here.
  // eslint-disable-next-line no-control-regex
  return String(value ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

const width = (s) => [...s].length;

/** Cuts `s` to `n` characters, ending in an ellipsis when cut. */
function truncate(s, n) {
  const chars = [...s];
  return chars.length <= n ? s : chars.slice(0, Math.max(0, n - 1)).join('') + '…';
}

/**
 * Word-wraps text to `cols`, starting with `first` and indenting the
 * following lines with `rest`. Words longer than a line stay whole.
 * @returns {string[]}
 */
function wrap(text, cols, first = '', rest = first) {
  const lines = [];
  let line = first, empty = true;
  for (const word of clean(text).split(/\s+/).filter(Boolean)) {
    if (!empty && width(line) + 1 + width(word) > cols) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

/**
 * The output style. On a terminal: laid out to its width, with ANSI bold and
 * dim unless NO_COLOR is set or TERM is dumb. Anywhere else (a pipe, a file):
 * `tty` false, no colour and no width, so no value is wrapped or cut, as gh
 * does for scripts.
 */
function makeStyle() {
  const tty = Boolean(stdout.isTTY);
  const on = tty && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const sgr = (code) => (s) => (on ? `\x1b[${code}m${s}\x1b[22m` : s);
  const cols = tty ? Math.max(40, stdout.columns > 0 ? stdout.columns : 80) : Infinity;
  return { tty, bold: sgr(1), dim: sgr(2), cols };
}

/** One line of tab-separated values; tabs and line breaks inside a value become spaces. */
const tsv = (cells) => cells.map((cell) => clean(cell).replace(/[\t\n\r]+/g, ' ')).join('\t');

/** A titled section of bullet points (nothing when the list is empty). */
function bullets(st, title, items = []) {
  if (!items.length) return [];
  return ['', st.bold(title), ...items.flatMap((item) => wrap(item, st.cols, '  • ', '    '))];
}

/** Renders the profile. */
function renderProfile(p, st) {
  const contact = p.contact ?? {};
  const labels = { form: 'Form', phone: 'Phone', email: 'Email', linkedin: 'LinkedIn', x: 'X',
    substack: 'Substack', youtube: 'YouTube', companyBio: 'Company bio' };
  const contactLines = Object.entries(labels).filter(([key]) => contact[key])
    .map(([key, label]) => `  ${label.padEnd(12)} ${clean(contact[key])}`);
  const sites = (p.siteStructure ?? []).flatMap((link) => [
    `  ${st.bold(clean(link.label))}  ${st.dim(clean(link.url))}`,
    ...(link.desc ? wrap(link.desc, st.cols, '    ') : []),
  ]);
  return [
    st.bold(clean(p.name)),
    ...(p.tagline ? wrap(p.tagline, st.cols).map(st.dim) : []),
    ...(p.about?.length ? ['', st.bold('About')] : []),
    ...(p.about ?? []).flatMap((para, i) => [...(i ? [''] : []), ...wrap(para, st.cols, '  ')]),
    ...bullets(st, 'Key facts', p.keyFacts),
    ...bullets(st, 'Recognition', p.recognition),
    ...bullets(st, 'Expertise', p.expertise),
    ...bullets(st, 'Education', p.education),
    ...(contactLines.length ? ['', st.bold('Contact'), ...contactLines] : []),
    ...(sites.length ? ['', st.bold('Site structure'), ...sites] : []),
    ...(p.lastUpdated ? ['', st.dim(`Last updated ${clean(p.lastUpdated)}`)] : []),
  ];
}

/**
 * Renders the insight list. On a terminal, a table (date, topic, title,
 * slug) that fits its width: the title shrinks first, then the topic, the
 * slug last. Elsewhere, one tab-separated line per insight with every value
 * whole, and nothing else (no header, no count), for cut, grep and awk.
 */
function renderInsights(list, st) {
  const items = list.items ?? [];
  const rows = items.map((i) => [i.dateISO || i.date, i.topic, i.title, i.slug].map(clean));
  if (!st.tty) return rows.map(tsv);
  if (!items.length) return ['No published insights.'];
  const header = ['DATE', 'TOPIC', 'TITLE', 'SLUG'];
  const widths = header.map((h, c) => Math.max(width(h), ...rows.map((r) => width(r[c]))));
  const min = [10, 8, 16, 20];
  let excess = widths.reduce((a, b) => a + b, 0) + 2 * (header.length - 1) - st.cols;
  for (const c of [2, 1, 3]) {
    const cut = Math.min(Math.max(excess, 0), Math.max(widths[c] - min[c], 0));
    widths[c] -= cut;
    excess -= cut;
  }
  const line = (cells) => cells.map((cell, c) => {
    const text = truncate(cell, widths[c]);
    return c === cells.length - 1 ? text : text + ' '.repeat(widths[c] - width(text));
  }).join('  ');
  const count = list.count ?? items.length;
  return [
    st.bold(line(header)),
    ...rows.map(line),
    '',
    st.dim(`${count} insight${count === 1 ? '' : 's'}. Read one with: ${SELF} insights <slug>`),
  ];
}

/** Renders one insight: title, metadata, then its Markdown body. */
function renderInsight(doc, st) {
  const meta = [doc.date || doc.dateISO, doc.topic, doc.readTime].filter(Boolean).map(clean);
  const modified = doc.dateModifiedISO && doc.dateModifiedISO !== doc.dateISO
    ? [st.dim(`Updated ${clean(doc.dateModifiedISO)}`)] : [];
  return [
    ...wrap(doc.title, st.cols).map(st.bold),
    st.dim(meta.join(' · ')),
    ...modified,
    st.dim(clean(doc.url)),
    ...(doc.description ? ['', ...wrap(doc.description, st.cols).map(st.dim)] : []),
    '',
    st.dim('─'.repeat(Math.min(st.cols, 80))),
    '',
    ...renderMarkdown(String(doc.content ?? ''), st),
  ];
}

/**
 * Lays out a Markdown body for the terminal: paragraphs, list items and
 * quotes are re-wrapped to the width; headings are bold; code, tables and
 * raw HTML stay as written.
 * @returns {string[]}
 */
function renderMarkdown(md, st) {
  const out = [];
  let block = [];
  let fence = null;
  const flush = () => {
    if (block.length) out.push(...wrapBlock(block, st.cols));
    block = [];
  };
  for (const raw of clean(md.replace(/\r\n?/g, '\n')).split('\n')) {
    const line = raw.replace(/\t/g, '    ');
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      out.push(st.dim(line));
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length && !line.trim().slice(open[1].length)) fence = null;
    } else if (open) {
      flush();
      fence = open[1];
      out.push(st.dim(line));
    } else if (!line.trim()) {
      flush();
      out.push('');
    } else if (/^ {0,3}#{1,6}(\s|$)/.test(line)) {
      flush();
      out.push(st.bold(line.trim()));
    } else if (/^ {0,3}([|<]|([-*_])( *\2){2,} *$)/.test(line) || (!block.length && /^ {4}/.test(line))) {
      flush();
      out.push(line);
    } else {
      if (/^\s*([-*+]|\d{1,9}[.)])\s/.test(line) || (block.length && /^ {0,3}>/.test(line) !== /^ {0,3}>/.test(block[0]))) flush();
      block.push(line);
    }
  }
  flush();
  return out.filter((l, i) => l !== '' || (i > 0 && out[i - 1] !== ''));
}

/** Wraps one paragraph, list item or quote, keeping hard line breaks. */
function wrapBlock(lines, cols) {
  const item = /^(\s*)([-*+]|\d{1,9}[.)])\s+/.exec(lines[0]);
  const quote = /^( {0,3}>\s?)/.exec(lines[0]);
  let first = '', rest = '';
  if (item) [first, rest] = [item[0], ' '.repeat(item[0].length)];
  else if (quote) [first, rest] = ['> ', '> '];
  const strip = (l, i) => (i === 0 && item ? l.slice(item[0].length) : quote ? l.replace(/^ {0,3}>\s?/, '') : l);
  const segments = [[]];
  lines.forEach((l, i) => {
    segments.at(-1).push(strip(l, i).trim().replace(/\\$/, ''));
    if (/( {2,}|\\)$/.test(l)) segments.push([]);
  });
  return segments.filter((s) => s.length)
    .flatMap((s, i) => wrap(s.join(' '), cols, i === 0 ? first : rest, rest));
}

/** Renders the health report: aligned on a terminal, "name<TAB>value" lines elsewhere. */
function renderHealth(h, st) {
  const rows = [['Status', h.status], ['Service', h.service], ['Version', h.version],
    ['API version', h.apiVersion], ['URL', h.url], ['Checked at', h.checkedAt]].filter(([, v]) => v != null);
  if (!st.tty) return rows.map(tsv);
  return rows.map(([k, v]) => `${st.dim(k.padEnd(12))} ${k === 'Status' ? st.bold(clean(v)) : clean(v)}`);
}

// ---- DNS-AID ------------------------------------------------------------------

/** The media type of an MCP server card in an AI catalog. */
const SERVER_CARD_TYPE = 'application/mcp-server-card+json';

/**
 * GETs a JSON document of the site, or null when the site has none there
 * (any answer but a 200 with a JSON body).
 * @returns {Promise<any>}
 */
async function optionalJson(url, token) {
  const { res, body } = await get(url, token);
  if (!res.ok) return null;
  try { return JSON.parse(body.toString('utf8')); } catch { return null; }
}

/** The URL `raw` resolved against `base`, or null when it is not an http(s) URL. */
function httpUrl(raw, base) {
  try {
    const url = new URL(String(raw), base);
    return /^https?:$/.test(url.protocol) ? url : null;
  } catch {
    return null;
  }
}

/** The port of a URL: its own, or its scheme's. */
const portOf = (url) => url.port || (url.protocol === 'http:' ? '80' : '443');

/** A DNS name from a URL's host: IPv6 brackets removed. */
const hostOf = (url) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The site's DNS-AID records (draft-mozleywilliams-dnsop-dnsaid-02), made
 * from its documents as the developer portal of a site running the
 * discovery module makes them from its route table: the agent index at
 * _index._agents when the site publishes an AI catalog, and the MCP
 * server at _mcp._agents, its server card the capability descriptor. The
 * card is the one the catalog names, else the one at the address scanners
 * probe, else the one at <MCP endpoint>/server-card of an endpoint at /mcp.
 * @returns {Promise<string[]>}
 */
async function dnsAidRecords(base, token) {
  const site = new URL(base);
  const host = hostOf(site);
  const catalog = await optionalJson(`${base}/.well-known/ai-catalog.json`, token);
  const listed = Array.isArray(catalog?.entries)
    ? catalog.entries.find((e) => e?.type === SERVER_CARD_TYPE && httpUrl(e.url, base)) : undefined;
  const candidates = [listed && httpUrl(listed.url, base), httpUrl('/.well-known/mcp/server-card.json', base),
    httpUrl('/mcp/server-card', base)].filter(Boolean);
  let card = null, cardUrl = null;
  for (const url of candidates) {
    card = await optionalJson(url.href, token);
    if (card && typeof card === 'object') { cardUrl = url; break; }
  }
  if (!cardUrl) {
    throw failure(`discovery: ${base} publishes no MCP server card (tried ${candidates.map((u) => u.href).join(', ')}), ` +
      'so there is no MCP server to publish in DNS');
  }
  const remote = Array.isArray(card.remotes) ? card.remotes.find((r) => r?.type === 'streamable-http' && httpUrl(r.url, base)) : undefined;
  const named = remote?.url ?? card.endpoint ?? card.transport?.endpoint;
  const endpoint = typeof named === 'string' && named ? httpUrl(named, cardUrl.href) : null;
  if (!endpoint) {
    throw failure(`discovery: the server card at ${cardUrl.href} names no MCP endpoint (remotes[].url or endpoint)`);
  }
  const svcb = (owner, target, port, alpn, ...params) =>
    `${owner}. 3600 IN SVCB 1 ${target}. mandatory=alpn,port ${alpn} port=${port} ${params.join(' ')}`;
  const records = [];
  if (catalog && Array.isArray(catalog.entries)) {
    records.push(svcb(`_index._agents.${host}`, host, portOf(site), 'alpn="h2,http/1.1"', 'key65409="ai-catalog.json"'));
  }
  records.push(svcb(`_mcp._agents.${host}`, hostOf(endpoint), portOf(endpoint), 'alpn="mcp"',
    `key65400="${cardUrl.href}"`, 'key65402="mcp"'));
  return records;
}

/** Prints the DNS-AID records, with what to do with them as zone-file comments. */
async function printDnsAid(base, opts) {
  const records = await dnsAidRecords(base, opts.token);
  if (opts.json) {
    stdout.write(JSON.stringify(records, null, 2) + '\n');
    return;
  }
  const host = hostOf(new URL(base));
  stdout.write([
    `; DNS-AID records of ${clean(host)} (draft-mozleywilliams-dnsop-dnsaid-02), from its documents.`,
    `; Add them to the zone of ${clean(host)} and sign it with DNSSEC: scanners count them only when the answer validates.`,
    ...records.map(clean),
  ].join('\n') + '\n');
}

// ---- Commands -----------------------------------------------------------------

/**
 * Runs the command line and returns the exit code.
 * @param {string[]} args the arguments after the script name
 * @returns {Promise<number>}
 */
async function main(args) {
  const opts = parseArgs(args);
  if (opts.help) {
    stdout.write(USAGE);
    return 0;
  }
  if (opts.version) {
    stdout.write(`discovery-cli ${VERSION}\n`);
    return 0;
  }
  const commands = {
    profile: { max: 0, path: () => '/api/v1/profile', render: renderProfile },
    insights: {
      max: 1,
      path: ([slug]) => (slug ? `/api/v1/insights/${encodeURIComponent(slug)}` : '/api/v1/insights'),
      render: (data, st, [slug]) => (slug ? renderInsight(data, st) : renderInsights(data, st)),
    },
    health: { max: 0, path: () => '/api/v1/health', render: renderHealth },
    'dns-aid': { max: 0, run: printDnsAid },
  };
  if (!opts.command) throw usageError('no command given');
  const command = Object.hasOwn(commands, opts.command) ? commands[opts.command] : null;
  if (!command) throw usageError(`unknown command ${JSON.stringify(opts.command)}`);
  if (opts.rest.length > command.max) {
    throw usageError(`too many arguments for ${opts.command}: ${opts.rest.join(' ')}`);
  }
  const base = resolveBaseUrl(opts.baseUrl);
  if (command.run) {
    await command.run(base, opts);
    return 0;
  }
  const { body, data } = await fetchJson(base, command.path(opts.rest), opts.token);
  if (opts.json) {
    stdout.write(body);
  } else {
    const lines = command.render(data, makeStyle(), opts.rest);
    if (lines.length) stdout.write(lines.join('\n') + '\n');
  }
  return 0;
}

/** Reports any error in one or a few lines, never as a stack trace. */
function report(err) {
  const message = err?.expected ? err.message : `discovery: unexpected error: ${clean(err?.message ?? err)}`;
  stderr.write(message.endsWith('\n') ? message : `${message}\n`);
  process.exitCode = err?.exitCode ?? 1;
}

// Node 18 announces fetch as experimental on first use; that is not the user's concern.
const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  if (!/fetch/i.test(String(warning?.message ?? warning))) emitWarning.call(process, warning, ...rest);
};
process.on('uncaughtException', report);
process.on('unhandledRejection', report);
stdout.on('error', (err) => { if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0); });

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, report);
