// Loads tscope's Chrome JSON export of one trace into real viewers and checks that each shows
// every thread with as many slices as `tscope info` counts for it: DevTools' Performance-panel
// trace engine (@paulirish/trace_engine) and chrome-trace in node, speedscope's web app in
// headless Chromium on the `--detail separate` export (less what speedscope cannot draw, see
// speedscopeVisible). Prints one line per viewer; exits 1 when a viewer fails or disagrees, 77
// (CTest's skip) when the pinned packages or Chromium are not installed.
//
//   node check_viewers.mjs TSCOPE NODE_MODULES CHROMIUM TRACE WORK_DIR

import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';

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

// The writer moves spans that overlap without nesting to "<thread> (overlapping)" rows; they
// are the listed thread's.
function listedName(thread) {
  return thread?.endsWith(' (overlapping)') ? thread.slice(0, -' (overlapping)'.length) : thread;
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
  let bytes = fs.readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = zlib.gunzipSync(bytes);
  const json = JSON.parse(bytes.toString('utf8'));
  return Array.isArray(json) ? {traceEvents: json} : json;
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
      const name = listedName(thread.name);
      shown.set(name, (shown.get(name) ?? 0) + slices);
    }
  }
  return shown;
}

// chrome-trace reports time per event name per thread, not counts, and leaves out categories it
// ignores ("toplevel"): it must take the file without throwing, name every thread tscope lists
// with slices, and time at least one.
function chromeTrace(file, expected) {
  const require = createRequire(import.meta.url);
  const parser = require(path.join(nodeModules, 'chrome-trace'));
  const result = parser.parseObject(readTrace(file));
  const names = new Map(Object.entries(result.threadName));
  const missing = [];
  for (const [name, count] of expected) {
    if (count === 0) continue;
    const threads = [...names].filter(([, threadName]) => listedName(threadName) === name);
    if (threads.length === 0) missing.push(`"${name}" not named`);
  }
  if (expected.size > 0 && Object.keys(result.eventTypeTime).length === 0) missing.push('no thread timed');
  return missing;
}

// What speedscope can show of each thread's slices: it draws time, so a zero-length slice has no
// frame, and it keys a frame on name plus args, so a slice that starts where an identical one
// at its depth ended continues that frame. Returns, per thread name, the slices tscope lists
// less those two.
function speedscopeVisible(file, expected) {
  const events = readTrace(file).traceEvents;
  const names = new Map();
  for (const event of events) {
    if (event.ph === 'M' && event.name === 'thread_name') {
      names.set(`${event.pid}/${event.tid}`, listedName(event.args.name));
    }
  }
  const byThread = new Map();
  for (const event of events) {
    if (event.ph !== 'X') continue;
    const key = `${event.pid}/${event.tid}`;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push(event);
  }
  const hidden = new Map();
  const hide = (name, count) => hidden.set(name, (hidden.get(name) ?? 0) + count);
  for (const [thread, slices] of byThread) {
    const name = names.get(thread);
    const timed = slices.filter(slice => slice.dur > 0);
    hide(name, slices.length - timed.length);
    timed.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const frameKey = slice => slice.args ? `${slice.name} ${JSON.stringify(slice.args)}` : slice.name;
    const open = [];
    const lastClosed = [];  // per depth
    let continued = 0;
    for (const slice of timed) {
      while (open.length > 0 && open.at(-1).ts + open.at(-1).dur <= slice.ts) lastClosed[open.length - 1] = open.pop();
      lastClosed.length = open.length + 1;
      const previous = lastClosed[open.length];
      if (previous && previous.ts + previous.dur === slice.ts && frameKey(previous) === frameKey(slice)) ++continued;
      open.push(slice);
    }
    hide(name, continued);
  }
  const visible = new Map();
  for (const [name, count] of expected) visible.set(name, count - (hidden.get(name) ?? 0));
  return visible;
}

async function speedscope(file, expected) {
  const page = await openInSpeedscope(chromium, path.join(nodeModules, 'speedscope/dist/release'), file);
  if (page.error) return {wrong: [page.error]};
  const visible = speedscopeVisible(file, expected);
  const shown = new Map();
  for (const profile of page.profiles) {
    // speedscope names a thread's profile "<process> (pid P), <thread> (tid T)".
    const thread = listedName(/^.* \(pid -?\d+\), (.*) \(tid -?\d+\)$/.exec(profile.name)?.[1] ?? profile.name);
    shown.set(thread, (shown.get(thread) ?? 0) + profile.opens);
  }
  return {wrong: compare('speedscope', visible, shown), frames: page.frames};
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
    // A trace the engine cannot take in its original form either (Chrome 65's timeline predates
    // the frame metadata it requires) is the input's limit, not the export's.
    const original = await traceEngine(tracePath).then(() => null, originalError => originalError);
    if (original && original.message === error.message) {
      console.log(`  trace_engine: SAME AS ORIGINAL: both throw "${error.message}"`);
    } else {
      report('trace_engine', [`threw ${error.stack}`]);
    }
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
    try {
      const {wrong, frames} = await speedscope(separate, expected);
      report('speedscope --detail separate', wrong, frames === undefined ? '' : ` (${frames} distinct frames)`);
    } catch (error) {
      report('speedscope --detail separate', [`threw ${error.stack}`]);
    }
    // With args in every frame's key speedscope makes a frame per call, orders zero-length
    // slices at one timestamp by key, and its demangler can fail on the long names: shown for
    // information, the separate export above is the one for speedscope.
    try {
      const {wrong, frames} = await speedscope(exported, expected);
      console.log(`  speedscope (detail in args, not asserted): ${wrong.length === 0 ? 'same counts' : 'differs'}` +
                  (frames === undefined ? '' : ` (${frames} distinct frames)`) +
                  wrong.slice(0, 3).map(line => `\n    ${line.split('\n')[0]}`).join(''));
    } catch (error) {
      console.log(`  speedscope (detail in args, not asserted): threw ${error.message}`);
    }
  }
  return failed ? 1 : 0;
}

process.exit(await main());
