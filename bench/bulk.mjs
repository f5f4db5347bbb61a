// Bulk import pacing: `petctl pets add --file` imports rows into a standalone sandbox
// (`petctl sandbox --minute-ms`) on the Pro plan's key (300 per window), with the window
// shortened. Prints the achieved rate over the plan's rate and the 429s the sandbox sent.
//
//   node bench/bulk.mjs            1,000 rows, windows of 30 s (about 1.5 minutes)
//   node bench/bulk.mjs --quick    400 rows, windows of 6 s (about 10 s)
//   node bench/bulk.mjs --free     200 rows on the Free plan's key (60 a minute) at the real
//                                  minute, as a new user meets it (about 3 minutes)
//
// The sandbox's windows are fixed: each opens with the first request after the last one
// closed, and allows 300 requests. N rows therefore need at least (ceil(N / 300) - 1)
// whole windows between the first request and the last: that is the plan's rate. The
// achieved rate is that ideal time over the time the import took, from the sandbox's
// first POST to its last answer (1.0 = exactly the plan's rate; it cannot be higher).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const PLANS = { pro: { key: 'sandbox-pro', perWindow: 300, name: 'Pro' }, free: { key: 'sandbox-free', perWindow: 60, name: 'Free' } };

export async function run({ quick, free = process.argv.includes('--free') }) {
  const plan = free ? PLANS.free : PLANS.pro;
  const perWindow = plan.perWindow;
  const rows = free ? 200 : quick ? 400 : 1000;
  // The Free run keeps the sandbox's real minute: no --minute-ms at all.
  const windowMs = free ? 60_000 : quick ? 6000 : 30_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-bench-bulk-'));
  const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0', ...(free ? [] : ['--minute-ms', String(windowMs)])], {
    env: { ...process.env, PETCTL_CONFIG_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const baseUrl = await new Promise((resolve, reject) => {
      createInterface({ input: sandbox.stdout }).once('line', resolve);
      sandbox.once('exit', (code) => reject(new Error(`petctl sandbox exited with ${code}`)));
    });
    // One log line per request, after the local time: "14:32:05 POST /v1/pets 201 pro 3ms"; timed as it arrives.
    const posts = [];
    createInterface({ input: sandbox.stderr }).on('line', (line) => {
      const post = /^\S+ POST \S+ (\d{3}) /.exec(line);
      if (post) posts.push({ at: performance.now(), status: Number(post[1]) });
    });

    const file = path.join(dir, 'pets.ndjson');
    fs.writeFileSync(file, Array.from({ length: rows }, (_, i) => `{"name":"Bench ${i + 1}","categoryId":${(i % 4) + 1}}\n`).join(''));
    const importDir = fs.mkdtempSync(path.join(dir, 'client-'));
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, '--base-url', baseUrl, 'pets', 'add', '--file', file, '-q'], {
        env: { ...process.env, PETCTL_CONFIG_DIR: importDir, PETCTL_API_KEY: plan.key },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('close', resolve);
    });
    // Let the last log lines arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const created = posts.filter((post) => post.status === 201).length;
    const tooMany = posts.filter((post) => post.status === 429).length;
    if (posts.length === 0) throw new Error(`the import (exit ${code}) sent no POST that the sandbox logged`);
    const spanMs = posts.at(-1).at - posts[0].at;
    const idealMs = (Math.ceil(rows / perWindow) - 1) * windowMs;
    const ratio = idealMs / spanMs;
    const note = `exit ${code}; ${created} of ${rows} created in ${(spanMs / 1000).toFixed(1)} s; the plan allows them in ${(idealMs / 1000).toFixed(1)} s (${perWindow} per ${windowMs / 1000} s window)`;
    return [
      {
        figure: `bulk import ${rows} rows, ${plan.name} plan, ${free ? 'the real minute' : `${windowMs / 1000} s windows`}: achieved / plan rate`,
        value: ratio,
        unit: 'x',
        // Up to a second per window boundary is lost to whole-second headers: a 6 s window cannot show the target.
        target: quick ? '>= 0.95 (full run only)' : '>= 0.95',
        met: quick ? undefined : ratio >= 0.95 && code === 0 && created === rows,
        note,
      },
      { figure: `bulk import ${rows} rows: 429s received`, value: tooMany, unit: '429s', target: '<= 1', met: tooMany <= 1 },
    ];
  } finally {
    sandbox.kill('SIGINT');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStandalone(run);
