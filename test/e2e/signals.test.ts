import { spawn } from 'node:child_process';
import { type TestContext, describe, expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, tempDir } from '../helpers/cli';

/**
 * An interrupted petctl ends by the signal itself: bash stops a loop only when its child died by SIGINT (one that
 * exits 130 tells bash it handled Ctrl-C).
 */

/** `script` in bash as the leader of its own process group; `ready(stdout, pid)` on every stdout chunk. */
function runBash(
  t: Pick<TestContext, 'onTestFinished'>,
  script: string,
  ready: (stdout: string, pid: number) => void,
  env: Record<string, string> = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const configDir = tempDir();
  const child = spawn('bash', ['-c', `petctl() { "$TEST_NODE" "$TEST_BIN" "$@"; }\n${script}`], {
    env: cleanEnv({ PETCTL_CONFIG_DIR: configDir, TEST_NODE: NODE, TEST_BIN: BIN, ...env }),
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
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    ready(stdout, child.pid!);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe.concurrent('an interrupted petctl ends by its signal', () => {
  it('Ctrl-C (SIGINT to the foreground process group) stops a bash for loop of two petctl runs after the first', async (t) => {
    let sent = false;
    const ended = await runBash(
      t,
      'for run in 1 2; do echo "start $run"; petctl sandbox --port 0; echo "after $run: $?"; done; echo "loop finished"',
      (stdout, pid) => {
        // A terminal's Ctrl-C goes to every process of the foreground group: bash and petctl.
        if (!sent && /^start 1\nhttp:\/\/127\.0\.0\.1:\d+\/v1\n/.test(stdout) && stdout.includes('sandbox-free')) {
          sent = true;
          process.kill(-pid, 'SIGINT');
        }
        if (stdout.includes('start 2')) process.kill(-pid, 'SIGKILL');
      },
    );
    expect(ended.stdout).not.toContain('start 2');
    expect(ended.stdout).not.toContain('after 1');
    expect(ended.stdout).not.toContain('loop finished');
    expect(ended.signal).toBe('SIGINT');
    expect(ended.stderr).toContain('listening on');
  });

  it('the shell sees 130 after SIGINT and 143 after SIGTERM', async (t) => {
    for (const [signal, status] of [['INT', 130], ['TERM', 143]] as const) {
      let sent = false;
      const ended = await runBash(
        t,
        // In the background so that only petctl gets the signal (Node resets the SIGINT that bash ignores for it).
        `"$TEST_NODE" "$TEST_BIN" sandbox --port 0 & pid=$!; echo "pid $pid"; wait $pid; echo "status $?"`,
        (stdout) => {
          const pid = /^pid (\d+)\n/.exec(stdout)?.[1];
          if (!sent && pid !== undefined && stdout.includes('sandbox-free')) {
            sent = true;
            process.kill(Number(pid), `SIG${signal}`);
          }
        },
      );
      expect(ended.stdout, ended.stderr).toContain(`status ${status}\n`);
      expect(ended.code).toBe(0);
    }
  });
});
