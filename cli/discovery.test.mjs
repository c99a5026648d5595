// Tests of the command-line client: they spawn the real script with node
// against a real server whose base URL is in DISCOVERY_TEST_BASE_URL.
// Run: DISCOVERY_TEST_BASE_URL=http://localhost:8080 node --test cli/
import { test, before, after } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BASE = (process.env.DISCOVERY_TEST_BASE_URL ?? '').replace(/\/+$/, '');
if (!BASE) {
  throw new Error('DISCOVERY_TEST_BASE_URL is not set: point it at a running server, ' +
    'e.g. DISCOVERY_TEST_BASE_URL=http://localhost:8080 node --test cli/');
}

const SCRIPT = fileURLToPath(new URL('./discovery.mjs', import.meta.url));
const DEAD_URL = 'http://127.0.0.1:1';
const STACK_FRAME = /^\s+at\s|node:internal|\bTypeError\b/m;
const ESC = '\x1b';

let tmp;
let fakeTTY;
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'discovery-cli-test-'));
  // Preloaded with --require: makes the script believe stdout is an 80-column terminal.
  fakeTTY = join(tmp, 'fake-tty.cjs');
  writeFileSync(fakeTTY, "Object.defineProperty(process.stdout, 'isTTY', { value: true });\n" +
    "Object.defineProperty(process.stdout, 'columns', { value: 80 });\n");
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The environment for the script: ours without the variables the client reads, plus `extra`. */
function scriptEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of ['DISCOVERY_BASE_URL', 'NO_COLOR', 'FORCE_COLOR', 'TERM']) delete env[name];
  return { ...env, ...extra };
}

/**
 * Runs the script with node and collects its output.
 * @returns {Promise<{code: number, stdout: Buffer, out: string, err: string}>}
 */
function run(args, { env = scriptEnv(), script = SCRIPT, cwd = tmp, nodeArgs = [], program } = {}) {
  return new Promise((resolve, reject) => {
    // program: run it with args instead of the script under node.
    const child = program ? spawn(program, args, { env, cwd }) : spawn(process.execPath, [...nodeArgs, script, ...args], { env, cwd });
    const out = [], err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    const timer = setTimeout(() => child.kill(), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      resolve({ code, stdout, out: stdout.toString('utf8'), err: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Runs the script with --base-url pointing at the test server. */
const runApi = (args, opts) => run([...args, '--base-url', BASE], opts);

/** Fetches a path of the test server directly. */
async function fetchRaw(path) {
  const res = await fetch(BASE + path, { headers: { Accept: 'application/json' } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}
const fetchJson = async (path) => JSON.parse((await fetchRaw(path)).body.toString('utf8'));

/** Every module specifier the source imports or re-exports, statically or dynamically. */
function importSpecifiers(src) {
  const specs = [];
  for (const m of src.matchAll(/\b(?:import|export)\s*(?:[\w*${}\s,]*?\s*from\s*)?(['"])([^'"\n]*)\1/g)) specs.push(m[2]);
  for (const m of src.matchAll(/\bimport\s*\(\s*([^)]*?)\s*\)/g)) {
    const literal = /^(['"`])([^'"`$]*)\1$/.exec(m[1]);
    specs.push(literal ? literal[2] : `<non-literal import(${m[1]})>`);
  }
  return specs;
}

/** Asserts that the source imports only node: built-ins and uses no require. */
function assertOnlyNodeImports(src) {
  const specs = importSpecifiers(src);
  assert.ok(specs.length > 0, 'found no import at all: the check would prove nothing');
  for (const spec of specs) assert.match(spec, /^node:/, `imports ${spec}, which is not a node: built-in`);
  assert.doesNotMatch(src, /\brequire\s*\(|createRequire/, 'uses require');
}

/** Asserts an exit code with the output in the message. */
function assertExit(r, code) {
  assert.equal(r.code, code, `exit ${r.code}, expected ${code}\nstdout: ${r.out}\nstderr: ${r.err}`);
}

/** Asserts that every line fits in 80 columns, except a line that is one unbreakable word. */
function assertFits80(text, { skipFences = false } = {}) {
  let fence = false;
  for (const line of text.split('\n')) {
    if (skipFences && /^ {0,3}(```|~~~)/.test(line)) fence = !fence;
    if (fence || [...line].length <= 80) continue;
    assert.doesNotMatch(line.trim(), /\s/, `line wider than 80 columns: ${line}`);
  }
}

// ---- The script itself --------------------------------------------------------

test('the repository script imports only node: built-ins', () => {
  assertOnlyNodeImports(readFileSync(SCRIPT, 'utf8'));
});

test('the repository script starts with a node shebang and holds each placeholder once', () => {
  const src = readFileSync(SCRIPT, 'utf8');
  assert.ok(src.startsWith('#!/usr/bin/env node\n'));
  assert.equal(src.split('"__DISCOVERY_BASE_URL__"').length, 2);
  assert.equal(src.split('"__DISCOVERY_VERSION__"').length, 2);
  assert.equal(src.match(/__DISCOVERY_[A-Z]+_?[A-Z]*__/g).length, 2, 'no other placeholder-shaped text');
});

test('--help and --version exit 0 without a base URL', async () => {
  for (const args of [['--help'], ['profile', '--help'], ['-h']]) {
    const r = await run(args);
    assertExit(r, 0);
    assert.match(r.out, /Usage:/);
    for (const word of ['profile', 'insights <slug>', 'health', '--base-url', '--json', '--token', 'DISCOVERY_BASE_URL']) {
      assert.ok(r.out.includes(word), `help mentions ${word}`);
    }
  }
  const v = await run(['--version']);
  assertExit(v, 0);
  assert.match(v.out, /^discovery-cli \S+\n$/);
});

test('the repository copy without a base URL exits 2 and says how to give one', async () => {
  const r = await run(['profile']);
  assertExit(r, 2);
  assert.equal(r.out, '');
  assert.match(r.err, /no base URL/);
  assert.match(r.err, /--base-url/);
  assert.match(r.err, /DISCOVERY_BASE_URL/);
  assert.doesNotMatch(r.err, /__DISCOVERY_/);
  assert.doesNotMatch(r.err, STACK_FRAME);
});

// ---- Commands -------------------------------------------------------------------

test('on a terminal, profile prints the profile readably', async () => {
  const profile = await fetchJson('/api/v1/profile');
  const r = await runApi(['profile'], { nodeArgs: ['--require', fakeTTY], env: scriptEnv({ NO_COLOR: '1' }) });
  assertExit(r, 0);
  assert.equal(r.out.split('\n')[0], profile.name);
  for (const heading of ['About', 'Key facts', 'Recognition', 'Expertise', 'Education', 'Contact', 'Site structure']) {
    assert.match(r.out, new RegExp(`^${heading}$`, 'm'));
  }
  const flat = r.out.replace(/\s+/g, ' ');
  for (const text of [profile.tagline, ...profile.keyFacts, ...profile.expertise, profile.contact.email,
    profile.contact.linkedin, ...profile.siteStructure.map((s) => s.url), profile.lastUpdated]) {
    assert.ok(flat.includes(text.replace(/\s+/g, ' ')), `profile output holds ${text}`);
  }
  assertFits80(r.out);
});

test('piped, profile prints every value whole on a line of its own, without colour', async () => {
  const profile = await fetchJson('/api/v1/profile');
  const r = await runApi(['profile']);
  assertExit(r, 0);
  assert.ok(!r.out.includes(ESC), 'no colour when stdout is not a terminal');
  const lines = r.out.split('\n').map((l) => l.trim());
  assert.equal(lines[0], profile.name);
  assert.ok(profile.about.some((para) => [...para].length > 80), 'the sample has a paragraph wider than a terminal');
  for (const text of [profile.tagline, ...profile.about]) assert.ok(lines.includes(text), `a line holds all of ${text}`);
  for (const fact of profile.keyFacts) assert.ok(lines.includes(`• ${fact}`), `a line holds all of ${fact}`);
});

test('on a terminal, insights prints a table of date, topic, title and slug', async () => {
  const list = await fetchJson('/api/v1/insights');
  assert.ok(list.items.length > 0, 'the test server publishes insights');
  const r = await runApi(['insights'], { nodeArgs: ['--require', fakeTTY], env: scriptEnv({ NO_COLOR: '1' }) });
  assertExit(r, 0);
  const lines = r.out.split('\n');
  assert.match(lines[0], /^DATE\s+TOPIC\s+TITLE\s+SLUG$/);
  list.items.forEach((item, i) => {
    const row = lines[i + 1];
    assert.ok(row.startsWith(item.dateISO), `row ${i} starts with the date: ${row}`);
    const lastCell = row.split('  ').at(-1);
    assert.ok(lastCell === item.slug || (lastCell.endsWith('…') && item.slug.startsWith(lastCell.slice(0, -1))),
      `row ${i} ends with the slug ${item.slug}: ${row}`);
    assert.ok(row.includes(item.title.slice(0, 8)), `row ${i} shows the title ${item.title}`);
  });
  assert.match(r.out, new RegExp(`\\b${list.count} insights?\\b`));
  for (const line of lines) assert.ok([...line].length <= 80, `table line wider than 80: ${line}`);
  assert.ok(list.items.some((item) => !r.out.includes(item.title)), 'a title is cut to fit 80 columns');
});

test('piped (insights | cat), insights prints one tab-separated line per insight, every value whole', async () => {
  const list = await fetchJson('/api/v1/insights');
  assert.ok(list.items.some((item) => [...item.title].length > 40), 'the sample has a title the table would cut');
  const r = await runApi(['insights']);
  assertExit(r, 0);
  assert.ok(!r.out.includes(ESC), 'no colour');
  assert.ok(r.out.endsWith('\n'));
  const lines = r.out.slice(0, -1).split('\n');
  assert.deepEqual(lines.map((l) => l.split('\t')),
    list.items.map((item) => [item.dateISO, item.topic, item.title, item.slug]), 'no header, no footer, nothing cut');
  assert.ok(!r.out.includes('…'));
});

test('on a real pseudo-terminal (script), insights is the table, in colour, cut to the width', async () => {
  const list = await fetchJson('/api/v1/insights');
  let scriptPath;
  try {
    scriptPath = execFileSync('which', ['script'], { encoding: 'utf8' }).trim();
  } catch {
    assert.fail('this test needs util-linux script(1) to give the CLI a real terminal (Debian: apt-get install bsdutils)');
  }
  const command = [process.execPath, SCRIPT, 'insights', '--base-url', BASE].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = await run(['-qec', command, '/dev/null'], { program: scriptPath });
  assertExit(r, 0);
  const out = r.out.replace(/\r\n/g, '\n');
  assert.ok(out.includes(`${ESC}[1mDATE`), `a bold header on a terminal: ${JSON.stringify(out.slice(0, 80))}`);
  assert.ok(!out.includes('\t'), 'no tabs in the table');
  assert.ok(list.items.some((item) => !out.includes(item.title)), 'a title is cut to fit the terminal');
  // eslint-disable-next-line no-control-regex
  assert.match(out.replace(/\x1b\[\d+m/g, ''), new RegExp(`\\b${list.count} insights?\\b`));
});

test('insights <slug> prints the title, metadata and the Markdown body', async () => {
  const { items } = await fetchJson('/api/v1/insights');
  const doc = await fetchJson(`/api/v1/insights/${items[0].slug}`);
  const r = await runApi(['insights', doc.slug], { nodeArgs: ['--require', fakeTTY], env: scriptEnv({ NO_COLOR: '1' }) });
  assertExit(r, 0);
  const flat = r.out.replace(/\s+/g, ' ');
  assert.ok(r.out.startsWith(doc.title.split(' ')[0]), 'starts with the title');
  for (const text of [doc.title, doc.topic, doc.readTime, doc.date, doc.url]) {
    assert.ok(flat.includes(text), `output holds ${text}`);
  }
  const headings = doc.content.split('\n').filter((l) => /^#{1,6} /.test(l));
  for (const h of headings) assert.match(r.out, new RegExp(`^${h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  const firstWords = doc.content.trim().split(/\s+/).slice(0, 12).join(' ');
  assert.ok(flat.includes(firstWords), 'the body is there');
  assert.ok(r.out.indexOf(doc.url) < r.out.indexOf(firstWords), 'metadata comes before the body');
  assertFits80(r.out, { skipFences: true });

  const piped = await runApi(['insights', doc.slug]);
  assertExit(piped, 0);
  const firstParagraph = doc.content.trim().split('\n\n')[0].replace(/\s*\n\s*/g, ' ');
  assert.ok([...firstParagraph].length > 80 && piped.out.split('\n').includes(firstParagraph), 'piped, a paragraph is one whole line');
});

test('health prints the status and version', async () => {
  const health = await fetchJson('/api/v1/health');
  const r = await runApi(['health']);
  assertExit(r, 0);
  assert.match(r.out, /^Status\s+ok$/m);
  assert.match(r.out, new RegExp(`^Version\\s+${health.version.replace(/\./g, '\\.')}$`, 'm'));
  assert.ok(r.out.includes(health.service));
  assert.ok(r.out.includes(health.url));
});

// ---- --json -----------------------------------------------------------------------

test('--json prints the body byte for byte', async () => {
  const { items } = await fetchJson('/api/v1/insights');
  for (const [args, path] of [
    [['profile'], '/api/v1/profile'],
    [['insights'], '/api/v1/insights'],
    [['insights', items.at(-1).slug], `/api/v1/insights/${items.at(-1).slug}`],
  ]) {
    const direct = await fetchRaw(path);
    assert.equal(direct.status, 200);
    const r = await runApi([...args, '--json']);
    assertExit(r, 0);
    assert.deepEqual(JSON.parse(r.out), JSON.parse(direct.body.toString('utf8')), `${path} parses to the same object`);
    assert.ok(r.stdout.equals(direct.body), `${path} is byte-equal`);
    assert.equal(r.err, '');
  }
});

test('health --json round-trips (checkedAt aside, which changes every call)', async () => {
  const direct = await fetchJson('/api/v1/health');
  const r = await runApi(['--json', 'health']);
  assertExit(r, 0);
  const got = JSON.parse(r.out);
  assert.ok(!Number.isNaN(Date.parse(got.checkedAt)));
  delete got.checkedAt;
  delete direct.checkedAt;
  assert.deepEqual(got, direct);
});

// ---- Flags and the base URL -------------------------------------------------------------

test('flags may stand before or after the command, in both forms', async () => {
  const expected = (await fetchRaw('/api/v1/profile')).body;
  for (const args of [
    ['--json', '--base-url', BASE, 'profile'],
    ['profile', '--json', '--base-url', BASE],
    [`--base-url=${BASE}`, 'profile', '--json'],
    ['--json', 'profile', `--base-url=${BASE}`],
  ]) {
    const r = await run(args);
    assertExit(r, 0);
    assert.ok(r.stdout.equals(expected), `byte-equal for ${args.join(' ')}`);
  }
});

test('DISCOVERY_BASE_URL gives the base URL, and --base-url wins over it', async () => {
  const fromEnv = await run(['health'], { env: scriptEnv({ DISCOVERY_BASE_URL: BASE }) });
  assertExit(fromEnv, 0);
  assert.match(fromEnv.out, /^Status\s+ok$/m);
  const flagWins = await run(['health', '--base-url', BASE], { env: scriptEnv({ DISCOVERY_BASE_URL: DEAD_URL }) });
  assertExit(flagWins, 0);
  const envUsed = await run(['health'], { env: scriptEnv({ DISCOVERY_BASE_URL: DEAD_URL }) });
  assertExit(envUsed, 1);
  assert.ok(envUsed.err.includes(DEAD_URL));
});

test('an invalid base URL is a usage error', async () => {
  const r = await run(['profile', '--base-url', 'ftp://example.com']);
  assertExit(r, 2);
  assert.match(r.err, /invalid base URL/);
});

// ---- Errors -------------------------------------------------------------------------------

for (const [slug, status] of [['no-such-insight-anywhere', 404], ['Bad_Slug', 404], ['a'.repeat(201), 400]]) {
  test(`insights ${slug}: the ${status} problem's title, detail and hint on stderr, exit 1`, async () => {
    const direct = await fetchRaw(`/api/v1/insights/${slug}`);
    assert.equal(direct.status, status);
    assert.match(direct.type, /^application\/problem\+json/);
    const problem = JSON.parse(direct.body.toString('utf8'));
    for (const args of [['insights', slug], ['insights', slug, '--json']]) {
      const r = await runApi(args);
      assertExit(r, 1);
      assert.equal(r.out, '', 'nothing on stdout');
      for (const field of ['title', 'detail', 'hint']) {
        assert.ok(r.err.includes(problem[field]), `stderr holds the ${field}: ${problem[field]}\n${r.err}`);
      }
      assert.ok(r.err.includes(String(status)));
      assert.doesNotMatch(r.err, STACK_FRAME);
    }
  });
}

test('an unknown command exits 2 with the usage on stderr', async () => {
  for (const args of [['frobnicate'], ['--json', 'profiles'], []]) {
    const r = await runApi(args);
    assertExit(r, 2);
    assert.equal(r.out, '');
    assert.match(r.err, /Usage:/);
    assert.doesNotMatch(r.err, STACK_FRAME);
  }
  const unknown = await runApi(['frobnicate']);
  assert.match(unknown.err, /unknown command "frobnicate"/);
});

test('a bad flag or argument exits 2 with the usage on stderr', async () => {
  for (const args of [['--frob', 'profile'], ['profile', '-x'], ['profile', '--json=yes'],
    ['profile', 'extra'], ['insights', 'a', 'b']]) {
    const r = await runApi(args);
    assertExit(r, 2);
    assert.equal(r.out, '');
    assert.match(r.err, /Usage:/);
  }
  for (const flag of ['--base-url', '--token']) {
    const missing = await run(['profile', flag]);
    assertExit(missing, 2);
    assert.ok(missing.err.includes(`${flag} needs a value`));
  }
});

test('a network failure names the URL and exits 1 without a stack trace', async () => {
  for (const base of [DEAD_URL, 'http://127.0.0.1:59999']) {
    const r = await run(['profile', '--base-url', base]);
    assertExit(r, 1);
    assert.equal(r.out, '');
    assert.ok(r.err.includes(`${base}/api/v1/profile`), `names the URL: ${r.err}`);
    assert.doesNotMatch(r.err, STACK_FRAME);
    assert.equal(r.err.trim().split('\n').length, 1, 'one line');
  }
});

// ---- Colour -------------------------------------------------------------------------------

test('colour only on a terminal, and never with NO_COLOR', async () => {
  const onTTY = { nodeArgs: ['--require', fakeTTY] };
  const coloured = await runApi(['profile'], onTTY);
  assertExit(coloured, 0);
  assert.ok(coloured.out.includes(`${ESC}[1m`), 'bold on a terminal');
  for (const args of [['profile'], ['insights'], ['health']]) {
    const plain = await runApi(args, { ...onTTY, env: scriptEnv({ NO_COLOR: '1' }) });
    assertExit(plain, 0);
    assert.ok(!plain.out.includes(ESC) && !plain.err.includes(ESC), `no ESC byte with NO_COLOR for ${args}`);
    const piped = await runApi(args, { env: scriptEnv({ NO_COLOR: '1' }) });
    assert.ok(!piped.out.includes(ESC));
  }
});

// ---- Against a stub server: headers, rate limiting, odd answers -------------------------------

/**
 * Starts a local HTTP server answering with `respond(req, n)` (n counts requests from 1).
 * @returns {Promise<{url: string, requests: object[], close: () => Promise<void>}>}
 */
async function stub(respond) {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url, headers: req.headers });
    const { status = 200, headers = {}, body = '' } = respond(req, requests.length);
    res.writeHead(status, headers).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const okHealth = () => ({ headers: { 'Content-Type': 'application/json' }, body: '{"status":"ok","service":"s","version":"1","apiVersion":"1","url":"u","checkedAt":"2026-01-01T00:00:00Z"}' });
const tooMany = (retryAfter) => ({
  status: 429,
  headers: { 'Content-Type': 'application/problem+json', 'Retry-After': String(retryAfter) },
  body: JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status: 429, detail: 'Slow down.', code: 'rate_limited', hint: 'Wait, then retry.' }),
});

test('sends Accept, User-Agent and, only with --token, the bearer token', async () => {
  const s = await stub(okHealth);
  try {
    assertExit(await run(['health', '--base-url', s.url]), 0);
    assertExit(await run(['--token', 'tok-123', 'health', '--base-url', s.url]), 0);
    assertExit(await run(['health', `--base-url=${s.url}`, '--token=tok-456']), 0);
    assert.equal(s.requests[0].url, '/api/v1/health');
    assert.equal(s.requests[0].headers.accept, 'application/json');
    assert.match(s.requests[0].headers['user-agent'], /^discovery-cli\/\S+$/);
    assert.equal(s.requests[0].headers.authorization, undefined);
    assert.equal(s.requests[1].headers.authorization, 'Bearer tok-123');
    assert.equal(s.requests[2].headers.authorization, 'Bearer tok-456');
  } finally {
    await s.close();
  }
});

test('a 429 with a short Retry-After is retried once', async () => {
  const s = await stub((req, n) => (n === 1 ? tooMany(1) : okHealth()));
  try {
    const r = await run(['health', '--base-url', s.url]);
    assertExit(r, 0);
    assert.equal(s.requests.length, 2);
    assert.match(r.out, /^Status\s+ok$/m);
    assert.match(r.err, /retrying in 1 s/);
  } finally {
    await s.close();
  }
});

test('a 429 that persists, or asks for a long wait, exits 1 and says when to retry', async () => {
  const again = await stub(() => tooMany(1));
  try {
    const r = await run(['health', '--base-url', again.url]);
    assertExit(r, 1);
    assert.equal(again.requests.length, 2, 'retried exactly once');
    assert.match(r.err, /Too Many Requests/);
  } finally {
    await again.close();
  }
  const long = await stub(() => tooMany(120));
  try {
    const r = await run(['health', '--base-url', long.url]);
    assertExit(r, 1);
    assert.equal(long.requests.length, 1, 'no retry for a long wait');
    for (const text of ['Too Many Requests', 'Slow down.', 'Wait, then retry.', 'Retry after 120 s']) {
      assert.ok(r.err.includes(text), `stderr holds ${text}: ${r.err}`);
    }
  } finally {
    await long.close();
  }
});

test('an answer that is not JSON, or an error that is not a problem, exits 1 clearly', async () => {
  const s = await stub((req, n) => (n === 1
    ? { headers: { 'Content-Type': 'text/html' }, body: '<html>site</html>' }
    : { status: 502, headers: { 'Content-Type': 'text/plain' }, body: 'upstream down' }));
  try {
    const html = await run(['profile', '--base-url', s.url]);
    assertExit(html, 1);
    assert.match(html.err, /did not answer with JSON/);
    assert.ok(html.err.includes(`${s.url}/api/v1/profile`));
    const bad = await run(['profile', '--base-url', s.url]);
    assertExit(bad, 1);
    assert.match(bad.err, /HTTP 502/);
    assert.match(bad.err, /upstream down/);
    assert.doesNotMatch(html.err + bad.err, STACK_FRAME);
  } finally {
    await s.close();
  }
});

// ---- DNS-AID ------------------------------------------------------------------------------------

/** The record lines of dns-aid's output: its zone-file comments left out. */
const recordLines = (out) => out.split('\n').filter((line) => line && !line.startsWith(';'));

test('dns-aid prints the DNS-AID records the developer portal gives, made from the site\'s documents', async () => {
  const r = await runApi(['dns-aid']);
  assertExit(r, 0);
  const records = recordLines(r.out);
  const portal = (await fetchRaw('/developers.md')).body.toString('utf8');
  const fence = /^```dns\n([\s\S]*?)\n```$/m.exec(portal);
  assert.ok(fence, 'the portal gives DNS-AID records in a dns fence');
  assert.deepEqual(records, fence[1].split('\n'));

  const site = new URL(BASE);
  const host = site.hostname, port = site.port || (site.protocol === 'http:' ? '80' : '443');
  assert.deepEqual(records, [
    `_index._agents.${host}. 3600 IN SVCB 1 ${host}. mandatory=alpn,port alpn="h2,http/1.1" port=${port} key65409="ai-catalog.json"`,
    `_mcp._agents.${host}. 3600 IN SVCB 1 ${host}. mandatory=alpn,port alpn="mcp" port=${port} key65400="${BASE}/mcp/server-card" key65402="mcp"`,
  ]);
  assert.match(r.out, /^; .*DNSSEC/m, 'the output says the zone must be signed');
  // What the records point at is there: the index, and the card naming the endpoint.
  assert.ok(Array.isArray((await fetchJson('/.well-known/ai-catalog.json')).entries));
  assert.equal((await fetchJson('/mcp/server-card')).remotes[0].url, `${BASE}/mcp`);

  const json = await runApi(['dns-aid', '--json']);
  assertExit(json, 0);
  assert.deepEqual(JSON.parse(json.out), records);
});

test('dns-aid for another site: its own server card, wherever its MCP endpoint is, and no index without a catalog', async () => {
  const card = { name: 'org.example/notes', remotes: [{ type: 'streamable-http', url: 'https://mcp.example.org:8443/rpc' }] };
  const s = await stub((req) => (req.url === '/.well-known/mcp/server-card.json'
    ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(card) }
    : { status: 404, body: 'not found' }));
  try {
    const r = await run(['dns-aid', '--base-url', s.url]);
    assertExit(r, 0);
    assert.deepEqual(recordLines(r.out), [
      `_mcp._agents.127.0.0.1. 3600 IN SVCB 1 mcp.example.org. mandatory=alpn,port alpn="mcp" port=8443 key65400="${s.url}/.well-known/mcp/server-card.json" key65402="mcp"`,
    ]);
    assert.deepEqual(s.requests.map((q) => q.url), ['/.well-known/ai-catalog.json', '/.well-known/mcp/server-card.json']);
  } finally {
    await s.close();
  }
});

test('dns-aid for a site without a server card, or whose card names no endpoint, exits 1 and says so', async () => {
  const none = await stub(() => ({ status: 404, body: 'not found' }));
  try {
    const r = await run(['dns-aid', '--base-url', none.url]);
    assertExit(r, 1);
    assert.match(r.err, /publishes no MCP server card/);
    assert.doesNotMatch(r.err, STACK_FRAME);
  } finally {
    await none.close();
  }
  const bare = await stub((req) => (req.url === '/mcp/server-card'
    ? { headers: { 'Content-Type': 'application/json' }, body: '{"name":"org.example/notes"}' }
    : { status: 404, body: 'not found' }));
  try {
    const r = await run(['dns-aid', '--base-url', bare.url]);
    assertExit(r, 1);
    assert.match(r.err, /names no MCP endpoint/);
  } finally {
    await bare.close();
  }
});

test('dns-aid takes no argument', async () => {
  const r = await run(['dns-aid', 'example.com', '--base-url', BASE]);
  assertExit(r, 2);
  assert.match(r.err, /too many arguments for dns-aid/);
});

// ---- The copy the server serves --------------------------------------------------------------

test('the served copy has the base URL baked in and works with no flags and no env', async () => {
  const served = await fetchRaw('/cli/discovery.mjs');
  assert.equal(served.status, 200, 'GET /cli/discovery.mjs answers 200');
  assert.match(served.type, /^text\/javascript/, `Content-Type ${served.type}`);
  const src = served.body.toString('utf8');
  assert.ok(src.startsWith('#!/usr/bin/env node\n'), 'the body is the script');
  assert.doesNotMatch(src, /__DISCOVERY_[A-Z_]+__/, 'no placeholder left');
  assertOnlyNodeImports(src);

  const dir = mkdtempSync(join(tmp, 'served-'));
  const script = join(dir, 'discovery.mjs');
  writeFileSync(script, served.body);
  const bare = { script, cwd: dir, env: { PATH: process.env.PATH ?? '' } };

  const profile = await fetchJson('/api/v1/profile');
  const r = await run(['profile'], bare);
  assertExit(r, 0);
  assert.equal(r.out.split('\n')[0], profile.name);

  const json = await run(['profile', '--json'], bare);
  assertExit(json, 0);
  assert.ok(json.stdout.equals((await fetchRaw('/api/v1/profile')).body));

  const health = await fetchJson('/api/v1/health');
  const v = await run(['--version'], bare);
  assertExit(v, 0);
  assert.equal(v.out, `discovery-cli ${health.version}\n`);
});
