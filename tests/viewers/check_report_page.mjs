// Renders `tscope analyze --format html` of a trace (or of several ranks) in headless Chromium and
// checks that the page draws: every chart named on the command line is there with shapes in its
// SVG and a non-empty size on the page, the findings table has a row per finding of the JSON
// report, the page loads nothing but itself (it must work offline), and no script error or
// console error occurs. Exits 1 on a failed check, 77 (CTest's skip) without Chromium.
//
//   node check_report_page.mjs TSCOPE CHROMIUM WORK_DIR CHARTS TRACE...
//   CHARTS: comma-separated data-chart ids that must be drawn (steps, memory, top-kernels, ...)

import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

import {Browser, collectProblems, openPage} from './devtools_browser.mjs';

const kSkip = 77;
const kLoadTimeoutMs = 30000;
const [tscope, chromium, workDirectory, chartList, ...traces] = process.argv.slice(2);

function analyze(format) {
  const result = spawnSync(tscope, ['analyze', '--format', format, ...traces],
                           {encoding: 'utf8', maxBuffer: 1 << 28});
  if (result.status !== 0) throw new Error(`tscope analyze --format ${format}: ${result.stderr}`);
  return result.stdout;
}

async function drawnPage(file) {
  const browser = new Browser(chromium);
  const problems = [];
  const requests = [];
  try {
    const page = await openPage(browser);
    collectProblems(browser, page, problems);
    browser.listeners.push(message => {
      if (message.method === 'Network.requestWillBeSent') requests.push(message.params.request.url);
    });
    await page('Runtime.enable');
    await page('Network.enable');
    await page('Page.enable');
    await page('Page.navigate', {url: pathToFileURL(file).href});
    const evaluate = async expression =>
        (await page('Runtime.evaluate', {expression, returnByValue: true})).result.value;
    const deadline = Date.now() + kLoadTimeoutMs;
    while ((await evaluate('document.readyState')) !== 'complete') {
      if (Date.now() > deadline) throw new Error(`page not loaded after ${kLoadTimeoutMs} ms`);
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    const drawn = await evaluate(`(() => {
      const charts = [...document.querySelectorAll('figure.chart')].map(figure => {
        const svg = figure.querySelector('svg');
        const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
        return {id: figure.dataset.chart, shapes: svg ? svg.querySelectorAll('rect, path, circle').length : 0,
                width: box.width, height: box.height};
      });
      return {charts, findings: document.querySelectorAll('tr.finding').length,
              title: document.title};
    })()`);
    return {...drawn, problems, requests};
  } finally {
    await browser.close();
  }
}

if (!chromium) {
  console.log('SKIP: Chromium not installed');
  process.exit(kSkip);
}
const name = path.basename(traces[0]).replace(/\..*/, '') + (traces.length > 1 ? '_ranks' : '');
const file = path.join(workDirectory, `${name}.report.html`);
fs.writeFileSync(file, analyze('html'));
const report = JSON.parse(analyze('json'));
const page = await drawnPage(file);

const failures = [...page.problems];
for (const id of chartList.split(',').filter(Boolean)) {
  const chart = page.charts.find(each => each.id === id);
  if (!chart) failures.push(`chart "${id}" missing (drawn: ${page.charts.map(c => c.id).join(', ')})`);
  else if (chart.shapes === 0 || chart.width === 0 || chart.height === 0)
    failures.push(`chart "${id}" is empty: ${JSON.stringify(chart)}`);
}
if (page.findings !== report.findings.length)
  failures.push(`${page.findings} finding rows, the JSON report has ${report.findings.length}`);
const others = page.requests.filter(url => url !== pathToFileURL(file).href);
if (others.length > 0) failures.push(`the page loaded other resources: ${others.join(', ')}`);

console.log(`${file}: ${page.charts.map(c => `${c.id} (${c.shapes} shapes)`).join(', ')}; ` +
            `${page.findings} findings`);
if (failures.length > 0) {
  for (const failure of failures) console.log(`FAIL: ${failure}`);
  process.exit(1);
}
