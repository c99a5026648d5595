// Audits pages the way the people who read them meet them: Lighthouse 12 (all
// four categories) and axe-core in a real headless Chromium.
//
//   node caddy_test/audit.mjs '{"urls": [...], "lighthouse": ["mobile", "desktop"], "axeWidths": [1280, 390],
//                              "errorPages": [...], "agentic": true}'
//
// prints one JSON object on stdout:
//
//   {"<url>": {"lighthouse": {"mobile": {"scores": {"performance": 0.98, ...},
//                                        "failing": [{"id", "title", "score", "category"}]}},
//              "axe": {"1280": [{"id", "impact", "help", "nodes": [selector ...]}], "390": [...]}}}
//
// With "agentic", Lighthouse also runs its Agentic Browsing category (WebMCP,
// the accessibility tree agents read, llms.txt, the ai-catalog.json schema),
// reported as "agentic-browsing" beside the other four, on a Chromium with
// its WebMCP testing switch on (--enable-features=WebMCPTesting): without it
// the page has no modelContext and the WebMCP audits are "not applicable".
// Each run lists, as notApplicable, the Agentic Browsing audits that did not
// apply to the page, and as flagged those that pass but list what to mend
// (webmcp-form-coverage scores 1 and lists the forms without annotations).
//
// errorPages are URLs of the urls that answer with an error status on purpose
// (a site's 404 page): Lighthouse refuses to audit those unless told to
// ignore the status, and then its SEO audit http-status-code fails, as it
// should. Chromium comes from CHROMIUM or the PATH (Debian's chromium). The Go tests
// (audit_test.go) run this script and hold the pages to their thresholds.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import agenticConfig from 'lighthouse/core/config/agentic-browsing-config.js';
import puppeteer from 'puppeteer-core';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim();
    } catch {
      // not this one
    }
  }
  throw new Error('no Chromium on PATH: install one (Debian: apt-get install -y chromium) or set CHROMIUM');
}

const request = JSON.parse(process.argv[2] ?? '{}');
const urls = request.urls ?? [];
const formFactors = request.lighthouse ?? ['mobile'];
const axeWidths = request.axeWidths ?? [1280, 390];
const errorPages = new Set(request.errorPages ?? []);
const categories = ['performance', 'accessibility', 'best-practices', 'seo'];
if (request.agentic) categories.push('agentic-browsing');

// listsWhatToMend are the informative audits whose items are problems: the
// forms without WebMCP annotations (webmcp-registered-tools, also
// informative, lists the tools found).
const listsWhatToMend = new Set(['webmcp-form-coverage']);

// configFor is the Lighthouse configuration of a form factor: the default
// (mobile) or the desktop one, with the Agentic Browsing category on top
// when asked for.
function configFor(formFactor) {
  const base = formFactor === 'desktop' ? desktopConfig : undefined;
  if (!request.agentic) return base;
  return { ...agenticConfig, settings: { ...(base?.settings ?? {}), ...(agenticConfig.settings ?? {}) } };
}

const chromeFlags = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];
if (request.agentic) chromeFlags.push('--enable-features=WebMCPTesting');
const chrome = await chromeLauncher.launch({ chromePath: chromiumPath(), chromeFlags });
const results = {};
try {
  for (const url of urls) {
    const entry = { lighthouse: {}, axe: {} };
    for (const formFactor of formFactors) {
      const config = configFor(formFactor);
      const flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: categories,
        ignoreStatusCode: errorPages.has(url) };
      const run = await lighthouse(url, flags, config);
      const lhr = run.lhr;
      if (lhr.runtimeError) throw new Error(`${url} (${formFactor}): ${lhr.runtimeError.message}`);
      const scores = {};
      const failing = [];
      const notApplicable = [];
      const flagged = [];
      for (const id of categories) {
        const category = lhr.categories[id];
        scores[id] = category.score;
        for (const ref of category.auditRefs) {
          const audit = lhr.audits[ref.id];
          if (id === 'agentic-browsing' && audit.scoreDisplayMode === 'notApplicable') notApplicable.push(ref.id);
          if (listsWhatToMend.has(ref.id) && audit.details?.items?.length) {
            flagged.push({ id: ref.id, value: [audit.displayValue, ...audit.details.items.slice(0, 5).map((item) => JSON.stringify(item).slice(0, 300))].join('; ') });
          }
          if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
            const items = (audit.details?.items ?? []).slice(0, 5).map((item) => JSON.stringify(item).slice(0, 300));
            const why = [audit.displayValue, audit.explanation, ...items].filter(Boolean).join('; ');
            failing.push({ id: ref.id, title: audit.title, score: audit.score, category: id, value: why });
          }
        }
      }
      // The tools webmcp-registered-tools found, by its sections' titles
      // ("Imperative Tools", "Declarative Tools").
      const webmcpTools = {};
      for (const section of lhr.audits['webmcp-registered-tools']?.details?.items ?? []) {
        if (section.type !== 'list-section') continue;
        webmcpTools[section.title] = (section.value?.items ?? []).map((row) => row.tool);
      }
      entry.lighthouse[formFactor] = { scores, failing, notApplicable, flagged, webmcpTools };
    }
    if (axeWidths.length > 0) {
      const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
      try {
        const page = await browser.newPage();
        for (const width of axeWidths) {
          await page.setViewport({ width, height: 900 });
          await page.goto(url, { waitUntil: 'networkidle0' });
          await page.evaluate(axeSource);
          const violations = await page.evaluate(async () => {
            // eslint-disable-next-line no-undef
            const found = await axe.run(document, { resultTypes: ['violations'] });
            return found.violations.map((v) => ({
              id: v.id,
              impact: v.impact,
              help: v.help,
              nodes: v.nodes.map((n) => n.target.join(' ')),
            }));
          });
          entry.axe[String(width)] = violations;
        }
        await page.close();
      } finally {
        await browser.disconnect();
      }
    }
    results[url] = entry;
  }
} finally {
  await chrome.kill();
}
process.stdout.write(JSON.stringify(results));
