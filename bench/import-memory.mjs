// Memory of a large import: `petctl pets add --file <file> --dry-run` on a 100 MB file of each
// format (CSV, NDJSON, JSON array), beside the same command on a 64 KB file of the same rows.
// Prints how much the large file adds to petctl's peak RSS: the reader streams, so that should
// be a few MB whatever the file's size. test/e2e/bulk-large.test.ts asserts the bound that tells
// streaming from holding the file (under a quarter of its size); this prints the figures.
//
//   node bench/import-memory.mjs            100 MB files (about 45 s)
//   node bench/import-memory.mjs --quick    20 MB files (about 10 s)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runStandalone } from './report.mjs';

const bin = fileURLToPath(new URL('../bin/petctl.js', import.meta.url));
const rssReporter = fileURLToPath(new URL('./report-rss.cjs', import.meta.url));
const MB = 1024 * 1024;

// CSV quotes every name (with a comma inside) and leaves every third status empty.
const FORMATS = [
  { format: 'csv', header: 'name,categoryId,status\r\n', line: (i) => `"Pet, number ${i}",${(i % 50) + 1},${i % 3 ? 'available' : ''}\r\n`, footer: '' },
  { format: 'ndjson', header: '', line: (i) => `{"name":"Pet number ${i}","categoryId":${(i % 50) + 1},"status":"available"}\n`, footer: '' },
  { format: 'json', header: '[\n', line: (i) => `${i ? ',\n' : ''}  {"name":"Pet number ${i}","categoryId":${(i % 50) + 1}}`, footer: '\n]\n' },
];

function write(file, { header, line, footer }, size) {
  const fd = fs.openSync(file, 'w');
  let written = fs.writeSync(fd, header);
  let rows = 0;
  while (written < size) {
    const chunk = [];
    for (let k = 0; k < 5000; k++) chunk.push(line(rows++));
    written += fs.writeSync(fd, chunk.join(''));
  }
  fs.writeSync(fd, footer);
  fs.closeSync(fd);
  return rows;
}

async function dryRun(file, configDir) {
  const child = spawn(process.execPath, [bin, 'pets', 'add', '--file', file, '--dry-run'], {
    env: { ...process.env, PETCTL_CONFIG_DIR: configDir, NODE_OPTIONS: `--require ${rssReporter}` },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let usage = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  child.stdio[3].setEncoding('utf8').on('data', (chunk) => (usage += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`pets add --dry-run on ${path.basename(file)} exited ${code}: ${stderr.trim().split('\n')[0]}`);
  // report-rss.cjs writes "<peak RSS KiB> <CPU µs>".
  return (Number(usage.trim().split(/\s+/)[0]) * 1024) / MB;
}

export async function run({ quick }) {
  const size = (quick ? 20 : 100) * MB;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-bench-import-memory-'));
  try {
    const rows = [];
    for (const format of FORMATS) {
      const small = path.join(dir, `small.${format.format}`);
      const large = path.join(dir, `large.${format.format}`);
      write(small, format, 64 * 1024);
      const count = write(large, format, size);
      const started = performance.now();
      const base = await dryRun(small, dir);
      const peak = await dryRun(large, dir);
      const seconds = (performance.now() - started) / 1000;
      fs.rmSync(large);
      rows.push({
        figure: `pets add --file, ${size / MB} MB ${format.format.toUpperCase()}, --dry-run: peak RSS added by the file`,
        value: peak - base,
        unit: 'MB',
        target: '<= 12 MB',
        met: peak - base <= 12,
        note: `${count.toLocaleString('en-US')} rows; peak RSS ${peak.toFixed(1)} MB, ${base.toFixed(1)} MB for a 64 KB file; both runs ${seconds.toFixed(1)} s`,
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStandalone(run);
