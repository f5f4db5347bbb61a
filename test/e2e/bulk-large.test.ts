import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, tempDir } from '../helpers/cli';

/**
 * A 100 MB file under --dry-run: validated as a stream, so what the file adds to peak RSS stays far below its
 * size. The child's peak RSS comes from bench/report-rss.cjs (getrusage maxRSS); the figures: bench/import-memory.mjs.
 */

const MB = 1024 * 1024;
const dir = tempDir();

/** `header`, then lines until `size` bytes, then `footer`: the file and its rows. */
function generate(name: string, header: string, line: (i: number) => string, size: number, footer = ''): { file: string; rows: number } {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  let written = fs.writeSync(fd, header);
  let rows = 0;
  while (written < size) written += fs.writeSync(fd, Array.from({ length: 5000 }, () => line(rows++)).join(''));
  fs.writeSync(fd, footer);
  fs.closeSync(fd);
  return { file, rows };
}

function dryRun(file: string): Promise<{ code: number | null; stdout: string; stderr: string; peakRss: number }> {
  const child = spawn(NODE, [BIN, 'pets', 'add', '--file', file, '--dry-run'], {
    env: cleanEnv({ PETCTL_CONFIG_DIR: dir, NODE_OPTIONS: `--require ${path.resolve(path.dirname(BIN), '../bench/report-rss.cjs')}` }),
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const read = (stream: NodeJS.ReadableStream) => {
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    return () => text;
  };
  const [stdout, stderr, rss] = [read(child.stdout!), read(child.stderr!), read(child.stdio[3] as NodeJS.ReadableStream)];
  // report-rss.cjs writes "<maxRSS KiB> <CPU µs>".
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: stdout(), stderr: stderr(), peakRss: Number(rss().split(' ')[0]) * 1024 })));
}

it.for([
  { format: 'ndjson', header: '', line: (i: number) => `{"name":"Pet number ${i}","categoryId":${(i % 50) + 1},"status":"available"}\n` },
  { format: 'csv', header: 'name,categoryId,status\r\n', line: (i: number) => `"Pet, number ${i}",${(i % 50) + 1},${i % 3 ? 'available' : ''}\r\n` },
  { format: 'json', header: '[\n', line: (i: number) => `${i ? ',\n' : ''}  {"name":"Pet number ${i}","categoryId":${(i % 50) + 1}}`, footer: '\n]\n' },
])('a 100 MB $format file under --dry-run: every row validated, nothing sent, exit 0, peak RSS far below the file size', { timeout: 180_000 }, async ({ format, header, line, footer }) => {
  const base = await dryRun(generate(`small.${format}`, header, line, 64 * 1024, footer).file);
  const large = generate(`large.${format}`, header, line, 100 * MB, footer);
  const result = await dryRun(large.file);

  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(new RegExp(`^would send ${large.rows} of ${large.rows} rows: 0 already created`));
  console.log(`${format}: ${large.rows} rows: peak RSS ${(result.peakRss / MB).toFixed(1)} MB (${(base.peakRss / MB).toFixed(1)} MB for a 64 KB file)`);
  // What the file adds, not the process's own size (which differs by Node version).
  expect(result.peakRss - base.peakRss).toBeLessThan(fs.statSync(large.file).size / 4);
  fs.rmSync(large.file);
});
