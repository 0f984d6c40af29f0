// Loads tscope's Chrome JSON export of one trace into real viewers and checks that each shows
// every thread with as many slices as `tscope info` counts for it: DevTools' Performance-panel
// trace engine (@paulirish/trace_engine) and chrome-trace in node, speedscope's web app in
// headless Chromium. Prints one line per viewer; exits 1 when a viewer fails or disagrees, 77
// (CTest's skip) when the pinned packages or Chromium are not installed.
//
//   node check_viewers.mjs TSCOPE NODE_MODULES CHROMIUM TRACE WORK_DIR

import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';

import {openInSpeedscope} from './speedscope_page.mjs';

const kSkip = 77;
const [tscope, nodeModules, chromium, tracePath, workDirectory] = process.argv.slice(2);

function run(...args) {
  const result = spawnSync(tscope, args, {encoding: 'utf8', maxBuffer: 1 << 28});
  if (result.status !== 0) throw new Error(`tscope ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

// Slices per thread name as `tscope info` lists the host-thread and GPU-stream tracks.
function expectedSlices(info) {
  const counts = new Map();
  for (const line of info.split('\n')) {
    const match = /^\s+\[\d+\] (?:host_thread|gpu_stream) "(.*)" \(pid [^)]*\): (\d+) spans/.exec(line);
    if (match) counts.set(match[1], (counts.get(match[1]) ?? 0) + Number(match[2]));
  }
  return counts;
}

function compare(viewer, expected, shown) {
  const wrong = [];
  for (const [name, count] of expected) {
    if ((shown.get(name) ?? 0) !== count) wrong.push(`"${name}": ${shown.get(name) ?? 'missing'} != ${count}`);
  }
  for (const [name, count] of shown) {
    if (!expected.has(name) && count !== 0) wrong.push(`"${name}": ${count} slices on a thread tscope does not list`);
  }
  return wrong;
}

function readTrace(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

async function traceEngine(file) {
  const engine = await import(path.join(nodeModules, '@paulirish/trace_engine/models/trace/trace.js'));
  // The engine measures layout boxes with the browser's DOMRect, which node lacks.
  globalThis.DOMRect ??= class DOMRect {
    constructor(x = 0, y = 0, width = 0, height = 0) { Object.assign(this, {x, y, width, height}); }
  };
  const model = engine.TraceModel.Model.createWithAllHandlers();
  await model.parse(readTrace(file).traceEvents);
  const shown = new Map();
  for (const process of model.parsedTrace().data.Renderer.processes.values()) {
    for (const thread of process.threads.values()) {
      const slices = thread.entries.filter(event => event.ph === 'X').length;
      shown.set(thread.name, (shown.get(thread.name) ?? 0) + slices);
    }
  }
  return shown;
}

// chrome-trace reports time per event name per thread, not counts: it must see every thread
// tscope lists with slices, under its name, without throwing.
function chromeTrace(file, expected) {
  const require = createRequire(import.meta.url);
  const parser = require(path.join(nodeModules, 'chrome-trace'));
  const result = parser.parseObject(readTrace(file));
  const names = new Map(Object.entries(result.threadName));
  const missing = [];
  for (const [name, count] of expected) {
    if (count === 0) continue;
    const threads = [...names].filter(([, threadName]) => threadName === name).map(([id]) => id);
    if (threads.length === 0) missing.push(`"${name}" not named`);
    else if (!threads.some(id => id in result.eventTypeTime)) missing.push(`"${name}" has no time`);
  }
  return missing;
}

async function speedscope(file, expected) {
  const page = await openInSpeedscope(chromium, path.join(nodeModules, 'speedscope/dist/release'), file);
  if (page.error) return {wrong: [page.error]};
  const shown = new Map();
  for (const profile of page.profiles) {
    // speedscope names a thread's profile "<process> (pid P), <thread> (tid T)".
    const thread = /^.* \(pid -?\d+\), (.*) \(tid -?\d+\)$/.exec(profile.name)?.[1] ?? profile.name;
    shown.set(thread, (shown.get(thread) ?? 0) + profile.opens);
  }
  return {wrong: compare('speedscope', expected, shown), frames: page.frames};
}

async function main() {
  if (!fs.existsSync(path.join(nodeModules, 'speedscope/dist/release/index.html'))) {
    console.log(`SKIP: the pinned viewers are not installed in ${nodeModules} (npm could not fetch them)`);
    return kSkip;
  }
  fs.mkdirSync(workDirectory, {recursive: true});
  const name = path.basename(tracePath).split('.')[0];
  const exported = path.join(workDirectory, `${name}.json`);
  run('export', '--chrome', exported, tracePath);
  const expected = expectedSlices(run('info', tracePath));
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  console.log(`${name}: tscope info lists ${expected.size} threads, ${total} slices`);
  let failed = false;
  const report = (viewer, wrong, extra = '') => {
    failed ||= wrong.length > 0;
    console.log(`  ${viewer}: ${wrong.length === 0 ? 'OK' : 'FAIL'}${extra}` +
                wrong.slice(0, 10).map(line => `\n    ${line}`).join(''));
  };
  try {
    report('trace_engine', compare('trace_engine', expected, await traceEngine(exported)));
  } catch (error) {
    report('trace_engine', [`threw ${error.stack}`]);
  }
  try {
    report('chrome-trace', chromeTrace(exported, expected));
  } catch (error) {
    report('chrome-trace', [`threw ${error.stack}`]);
  }
  if (!chromium || !fs.existsSync(chromium)) {
    console.log(`  speedscope: SKIP: Chromium not found at "${chromium}" (scripts/install-deps.sh installs it)`);
  } else {
    const separate = path.join(workDirectory, `${name}.separate.json`);
    run('export', '--detail', 'separate', '--chrome', separate, tracePath);
    for (const [label, file] of [['speedscope', exported], ['speedscope --detail separate', separate]]) {
      try {
        const {wrong, frames} = await speedscope(file, expected);
        report(label, wrong, frames === undefined ? '' : ` (${frames} distinct frames)`);
      } catch (error) {
        report(label, [`threw ${error.stack}`]);
      }
    }
  }
  return failed ? 1 : 0;
}

process.exit(await main());
