import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type TestContext, describe, expect, it, vi } from 'vitest';
import { BIN, NODE, WAIT, cleanEnv, expectCleanError, ok, setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';

/** Input that never ends: /dev/zero as the file, or an endless standard input (/proc/<pid>/io shows the reading). */

/** What /proc shows of a running process (undefined once it has ended, a zombie too): the bytes it has read (rchar)
 * and written (wchar), the milliseconds its main thread has waited for a CPU, and when. */
function seen(pid: number): { read: number; written: number; cpuWait: number; at: number } | undefined {
  const at = performance.now();
  try {
    if (/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) return undefined;
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    const cpuWait = Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
    return { read: Number(/^rchar: (\d+)/m.exec(io)![1]), written: Number(/^wchar: (\d+)/m.exec(io)![1]), cpuWait, at };
  } catch {
    return undefined;
  }
}

/** An endless stream of zeros, as `head -c 3G /dev/zero | …` gives. */
function zeros(t: Pick<TestContext, 'onTestFinished'>): Readable {
  const head = spawn('head', ['-c', '3G', '/dev/zero'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.onTestFinished(() => void head.kill('SIGKILL'));
  return head.stdout!;
}

const MIB = 1024 * 1024;

describe.concurrent('pets add --file: input that never ends', () => {
  it.for([
    { input: '/dev/zero as the file', file: '/dev/zero', signal: 'SIGINT', ending: 'ends by SIGINT within a second' },
    { input: 'an endless standard input (head -c 3G /dev/zero | petctl pets add --file - --dry-run)', file: '-', signal: 'SIGINT', ending: 'ends by SIGINT within a second' },
    { input: 'an endless standard input', file: '-', signal: 'SIGTERM', ending: 'ends by SIGTERM within a second' },
    { input: 'an endless standard input', file: '-', signal: 'SIGKILL', ending: 'ends by SIGKILL' },
  ] as const)('$input, --dry-run: $ending; nothing in TMPDIR, nothing sent', async ({ file, signal }, t) => {
    const { configDir, key, server } = await setupE2e(t, creator());
    const tmp = fs.mkdtempSync(path.join(configDir, 'tmp-'));
    const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, TMPDIR: tmp };
    const child = spawn(NODE, [BIN, '--base-url', server.baseUrl, 'pets', 'add', '--file', file, '--dry-run'], { env: cleanEnv(env), stdio: [file === '-' ? zeros(t) : 'ignore', 'ignore', 'pipe'] });
    t.onTestFinished(() => void child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, by) => resolve(by)));
    const counted = file === '-' ? 'written' : 'read';
    // 16 MiB read, or spooled to a file that has no name in TMPDIR.
    await vi.waitFor(() => expect(seen(child.pid!)?.[counted]).toBeGreaterThan(16 * MIB), WAIT);
    expect(fs.readdirSync(tmp)).toEqual([]);
    const signalled = seen(child.pid!)!;
    child.kill(signal);
    let last = signalled;
    const watch = setInterval(() => (last = seen(child.pid!) ?? last), 5);
    expect(await ended, stderr).toBe(signal);
    clearInterval(watch);
    if (signal !== 'SIGKILL') {
      // It stopped reading at once, and ended within a second of its own time (waits for a CPU are the machine's).
      expect(last[counted] - signalled[counted]).toBeLessThan(1 * MIB);
      expect(last.at - signalled.at - (last.cpuWait - signalled.cpuWait)).toBeLessThan(1000);
    }
    expect(stderr).not.toContain('    at ');
    expect(fs.readdirSync(tmp)).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('standard input up to PETCTL_STDIN_MAX_BYTES is imported; one byte more stops with a clear message, exit 6, nothing sent, nothing left', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const tmp = fs.mkdtempSync(path.join(configDir, 'tmp-'));
    const row = (i: number) => `{"name":"P${String(i).padStart(6, '0')}","categoryId":1}\n`;
    const rows = Math.floor(MIB / row(0).length);
    let input = Array.from({ length: rows }, (_, i) => row(i)).join('');
    input += ' '.repeat(MIB - input.length);
    expect(Buffer.byteLength(input)).toBe(MIB);
    const env = { TMPDIR: tmp, PETCTL_STDIN_MAX_BYTES: String(MIB) };

    const fits = await ok(petctl(['pets', 'add', '--file', '-', '--dry-run', '-o', 'json'], { input, env }));
    expect(JSON.parse(fits.stdout)).toMatchObject({ rows, valid: rows, invalid: 0 });

    const over = await petctl(['pets', 'add', '--file', '-'], { input: `${input} `, env });
    expectCleanError(over, 6);
    expect(over.stderr).toBe(
      'error: standard input is larger than 1 MiB, the most petctl keeps to read it twice; nothing was sent (input_too_large)\nhint: save it to a file and give its path with --file (or raise PETCTL_STDIN_MAX_BYTES)\n',
    );
    expect(server.requests).toHaveLength(0);
    expect(fs.readdirSync(tmp)).toEqual([]);

    const bad = await petctl(['pets', 'add', '--file', '-'], { input, env: { PETCTL_STDIN_MAX_BYTES: '1G' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('PETCTL_STDIN_MAX_BYTES must be a whole number of bytes, not "1G"');
  });
});
