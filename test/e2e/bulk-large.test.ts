import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, tempDir } from '../helpers/cli';

/**
 * A 100 MB file under --dry-run: validated as a stream, so peak RSS stays far
 * below the file's size. The file is generated here, in a temporary directory;
 * the child's peak RSS comes from bench/report-rss.cjs (getrusage maxRSS).
 */

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const SIZE = 100 * 1024 * 1024;

function generate(name: string, header: string, line: (i: number) => string, size: number, footer = ''): { file: string; rows: number } {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  let written = fs.writeSync(fd, header);
  let rows = 0;
  while (written < size) {
    const chunk: string[] = [];
    for (let k = 0; k < 5000; k++) chunk.push(line(rows++));
    written += fs.writeSync(fd, chunk.join(''));
  }
  fs.writeSync(fd, footer);
  fs.closeSync(fd);
  return { file, rows };
}

function dryRun(file: string): Promise<{ code: number | null; stdout: string; stderr: string; peakRssBytes: number }> {
  return new Promise((resolve, reject) => {
    const rss = path.resolve(path.dirname(BIN), '../bench/report-rss.cjs');
    const child = spawn(NODE, [BIN, 'pets', 'add', '--file', file, '--dry-run'], {
      env: cleanEnv({ PETCTL_CONFIG_DIR: dir, NODE_OPTIONS: `--require ${rss}` }),
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let maxRss = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (chunk: string) => (maxRss += chunk));
    child.on('error', reject);
    // report-rss.cjs writes "<maxRSS KiB> <CPU µs>".
    child.on('close', (code) => resolve({ code, stdout, stderr, peakRssBytes: Number(maxRss.trim().split(' ')[0]) * 1024 }));
  });
}

const MB = 1024 * 1024;

describe('a 100 MB file under --dry-run', () => {
  const cases: Array<{ format: string; header: string; line: (i: number) => string; footer?: string }> = [
    { format: 'ndjson', header: '', line: (i) => `{"name":"Pet number ${i}","categoryId":${(i % 50) + 1},"status":"available"}\n` },
    { format: 'csv', header: 'name,categoryId,status\r\n', line: (i) => `"Pet, number ${i}",${(i % 50) + 1},${i % 3 ? 'available' : ''}\r\n` },
    { format: 'json', header: '[\n', line: (i) => `${i ? ',\n' : ''}  {"name":"Pet number ${i}","categoryId":${(i % 50) + 1}}`, footer: '\n]\n' },
  ];
  it.for(cases)('$format: every row validated, nothing sent, exit 0, peak RSS far below the file size', { timeout: 180_000 }, async ({ format, header, line, footer }) => {
    const small = generate(`small.${format}`, header, line, 64 * 1024, footer);
    const large = generate(`large.${format}`, header, line, SIZE, footer);
    const size = fs.statSync(large.file).size;

    const base = await dryRun(small.file);
    const result = await dryRun(large.file);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^would send ${large.rows} of ${large.rows} rows: 0 already created`));
    console.log(`${format}: ${(size / MB).toFixed(0)} MB file, ${large.rows} rows: peak RSS ${(result.peakRssBytes / MB).toFixed(1)} MB (${(base.peakRssBytes / MB).toFixed(1)} MB for a 64 KB file)`);
    // What the file adds is the rule, not the process's own size (which differs by Node version): a
    // reader that held the file, or a few bytes a row, would add tens of MB. The figures: bench/import-memory.mjs.
    expect(result.peakRssBytes - base.peakRssBytes).toBeLessThan(size / 4);
    fs.rmSync(large.file);
  });
});
