// Headless Chromium driven over the DevTools protocol on a pipe (no network, no port): the
// browser, a page session, and the page's uncaught exceptions, console errors and dialogs
// collected as problems. Shared by the viewer tests that open pages in Chromium.

import { spawn } from 'node:child_process';

const kCloseTimeoutMs = 5000;

// The DevTools protocol over --remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4.
export class Browser {
  constructor(chromium) {
    this.child = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                                  '--no-first-run', '--remote-debugging-pipe', 'about:blank'],
                       {stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe']});
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = [];
    let buffer = '';
    this.child.stdio[4].on('data', chunk => {
      buffer += chunk.toString('utf8');
      for (let end; (end = buffer.indexOf('\0')) >= 0;) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (message.id !== undefined && this.pending.has(message.id)) {
          this.pending.get(message.id)(message);
          this.pending.delete(message.id);
        } else {
          for (const listener of this.listeners) listener(message);
        }
      }
    });
  }
  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    this.child.stdio[3].write(JSON.stringify({id, method, params, sessionId}) + '\0');
    return new Promise((resolve, reject) => this.pending.set(id, message => {
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result);
    }));
  }
  // Asks Chromium to shut down, which removes the folder it keeps in /tmp
  // (org.chromium.Chromium.*) that a kill leaves behind; kills it when it has not exited in time.
  async close() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise(resolve => this.child.once('exit', () => resolve(true)));
      let timer;
      const late = new Promise(resolve => {
        timer = setTimeout(() => resolve(false), kCloseTimeoutMs);
      });
      this.send('Browser.close').catch(() => {});
      const closed = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (!closed) this.child.kill();
    }
  }
}

// A fresh tab and a function that sends DevTools commands to it.
export async function openPage(browser) {
  const {targetId} = await browser.send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await browser.send('Target.attachToTarget', {targetId, flatten: true});
  return (method, params) => browser.send(method, params, sessionId);
}

// Records what a page reports as going wrong into `problems`, and dismisses its dialogs.
export function collectProblems(browser, page, problems) {
  browser.listeners.push(message => {
    if (message.method === 'Runtime.exceptionThrown') {
      const details = message.params.exceptionDetails;
      problems.push(`exception: ${details.exception?.description ?? details.text}`);
    } else if (message.method === 'Runtime.consoleAPICalled' && message.params.type === 'error') {
      problems.push(`console.error: ${message.params.args.map(a => a.value ?? a.description).join(' ')}`);
    } else if (message.method === 'Page.javascriptDialogOpening') {
      problems.push(`dialog: ${message.params.message}`);
      page('Page.handleJavaScriptDialog', {accept: true}).catch(() => {});
    }
  });
}
