import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, setupE2e, tempDir } from '../helpers/cli';

/**
 * An interrupted petctl ends by the signal itself: bash stops a loop only when its child died by SIGINT (one that
 * exits 130 tells bash it handled Ctrl-C). How petctl ends by SIGINT and SIGTERM: test/e2e/bulk-endless-input.test.ts.
 */

it('Ctrl-C (SIGINT to the foreground process group) stops a bash for loop of two petctl runs after the first', async (t) => {
  const script = 'for run in 1 2; do echo "start $run"; petctl sandbox --port 0; echo "after $run: $?"; done; echo "loop finished"';
  // bash leads its own process group, as a terminal's foreground job does.
  const child = spawn('bash', ['-c', `petctl() { "$TEST_NODE" "$TEST_BIN" "$@"; }\n${script}`], {
    env: cleanEnv({ PETCTL_CONFIG_DIR: tempDir(), TEST_NODE: NODE, TEST_BIN: BIN }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.onTestFinished(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  });
  let stdout = '';
  let stderr = '';
  let sent = false;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    // A terminal's Ctrl-C goes to every process of the foreground group: bash and petctl.
    if (!sent && /^start 1\nhttp:\/\/127\.0\.0\.1:\d+\/v1\n/.test(stdout) && stdout.includes('sandbox-free')) {
      sent = true;
      process.kill(-child.pid!, 'SIGINT');
    }
    if (stdout.includes('start 2')) process.kill(-child.pid!, 'SIGKILL');
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const signal = await new Promise((resolve) => child.on('close', (_code, by) => resolve(by)));

  expect(stdout).not.toContain('start 2');
  expect(stdout).not.toContain('after 1');
  expect(stdout).not.toContain('loop finished');
  expect(signal).toBe('SIGINT');
  expect(stderr).toContain('listening on');
});

it.for(['SIGINT', 'SIGTERM'] as const)('%s while petctl api --input - waits for the rest of standard input: it ends by that signal, nothing sent', async (signal, t) => {
  const { server, key, configDir } = await setupE2e(t);
  const env = cleanEnv({ PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key });
  const args = [BIN, '--base-url', server.baseUrl, 'api', '-X', 'POST', '/pets', '--input', '-'];
  const child = spawn(NODE, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
  t.onTestFinished(() => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise((resolve) => child.on('close', (_code, by) => resolve(by)));
  // More than a pipe holds: written only once petctl is reading it; standard input then stays open.
  await new Promise((resolve) => child.stdin.write(`{"name":"${'a'.repeat(256 * 1024)}`, resolve));
  child.kill(signal);

  expect(await ended, stderr).toBe(signal);
  expect(stderr).not.toContain('    at ');
  expect(server.requests).toHaveLength(0);
});
