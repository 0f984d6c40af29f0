// Opens speedscope's built web app in headless Chromium on one Chrome trace, as a user who drops
// the file there would, and returns what the app made of it: the profiles (one per thread) with
// their names and event counts, read from the app's own export of what it imported, or the error
// the page showed. Chromium is driven as devtools_browser.mjs does it, and the app and trace are
// served from a local HTTP server because speedscope refuses a profileURL on a file: page.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { Browser, collectProblems, openPage } from './devtools_browser.mjs';

const kLoadTimeoutMs = 60000;
const kPollMs = 250;

function serve(appDirectory, tracePath) {
  const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const file = name === '/trace.json' ? tracePath : path.join(appDirectory, path.normalize(name));
    fs.readFile(file, (error, data) => {
      response.writeHead(error ? 404 : 200);
      response.end(error ? undefined : data);
    });
  });
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function openInSpeedscope(chromium, appDirectory, tracePath) {
  const server = await serve(appDirectory, tracePath);
  const browser = new Browser(chromium);
  const problems = [];
  try {
    const page = await openPage(browser);
    collectProblems(browser, page, problems);
    await page('Runtime.enable');
    await page('Page.enable');
    const base = `http://127.0.0.1:${server.address().port}`;
    await page('Page.navigate',
               {url: `${base}/index.html#profileURL=${encodeURIComponent(base + '/trace.json')}`});
    const evaluate = async (expression) =>
        (await page('Runtime.evaluate', {expression, awaitPromise: true, returnByValue: true})).result.value;
    // Loaded once the toolbar offers the export of what was imported; failed once it says so.
    const deadline = Date.now() + kLoadTimeoutMs;
    let text = '';
    for (;;) {
      text = await evaluate('document.body ? document.body.innerText : ""');
      if (text.includes('Something went wrong') || problems.length > 0) {
        return {error: [text.split('\n').slice(-2).join(' '), ...problems].join('; ')};
      }
      if (text.includes('Export')) break;
      if (Date.now() > deadline) return {error: `not loaded after ${kLoadTimeoutMs} ms: ${text}`};
      await new Promise(resolve => setTimeout(resolve, kPollMs));
    }
    const exported = await evaluate(`new Promise((resolve, reject) => {
      const create = URL.createObjectURL;
      URL.createObjectURL = blob => { blob.text().then(resolve, reject); return create(blob); };
      const button = [...document.querySelectorAll('div')].find(d => d.textContent.endsWith('Export') &&
                                                                    d.children.length <= 1);
      if (!button) reject(new Error('no Export button'));
      else button.click();
    })`);
    const file = JSON.parse(exported);
    const profiles = file.profiles.map(profile => ({
      name: profile.name,
      opens: profile.type === 'evented' ? profile.events.filter(e => e.type === 'O').length
                                        : profile.samples.length,
    }));
    return {profiles, frames: file.shared.frames.length, toolbar: text, problems};
  } finally {
    await browser.close();
    server.close();
  }
}
