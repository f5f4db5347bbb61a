// Memory under a flood: `petctl pets list` against a loopback server that sends a 2 GB body, then
// an endless one. Prints petctl's peak RSS and how much the server got to write before petctl hung
// up at its 8 MiB cap (MAX_RESPONSE_BYTES). test/e2e/faults-hostile.test.ts asserts the bounds;
// this prints the figures.
//
//   node bench/flood.mjs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const rssReporter = fileURLToPath(new URL('./report-rss.cjs', import.meta.url));

async function flood(total) {
  let written = 0;
  const server = http.createServer((_req, res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    res.writeHead(200, { 'content-type': 'application/json', ...(Number.isFinite(total) ? { 'content-length': String(total) } : {}) });
    const pump = () => {
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-flood-'));
  const child = spawn(process.execPath, [bin, '--base-url', `http://127.0.0.1:${server.address().port}/v1`, 'pets', 'list'], {
    env: { ...process.env, PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'bench-flood-key', NODE_OPTIONS: `--require ${rssReporter}` },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let maxRssKiB = '';
  child.stdio[3].on('data', (chunk) => (maxRssKiB += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  server.closeAllConnections();
  server.close();
  fs.rmSync(configDir, { recursive: true, force: true });
  // report-rss.cjs writes "<peak RSS KiB> <CPU µs>".
  return { code, peakMiB: Number(maxRssKiB.trim().split(/\s+/)[0]) / 1024, writtenMiB: written / 1024 / 1024 };
}

export async function run() {
  const rows = [];
  for (const [what, total] of [['2 GB body', 2 * 1024 ** 3], ['endless body', Number.POSITIVE_INFINITY]]) {
    const result = await flood(total);
    const note = `exit ${result.code}`;
    rows.push({ figure: `pets list, ${what}: petctl peak RSS`, value: result.peakMiB, unit: 'MiB', target: '< 256 MiB (asserted in tests)', met: result.peakMiB < 256, note });
    rows.push({ figure: `pets list, ${what}: bytes the server wrote before petctl hung up`, value: result.writtenMiB, unit: 'MiB', target: '8 MiB cap + socket buffers' });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStandalone(run);
