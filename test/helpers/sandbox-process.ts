import { spawn } from 'node:child_process';
import { type TestContext, onTestFinished, vi } from 'vitest';
import { BIN, NODE, WAIT, cleanEnv } from './cli';

type Ended = { code: number | null; signal: NodeJS.Signals | null };

// The built `petctl sandbox <args>` for the rest of the test (pass `t` in describe.concurrent), once it prints its
// base URL.
export function startSandboxProcess(
  args: string[],
  { env = {}, t = { onTestFinished } }: { env?: Record<string, string>; t?: Pick<TestContext, 'onTestFinished'> } = {},
) {
  const child = spawn(NODE, [BIN, 'sandbox', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<Ended>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const sandbox = {
    pid: child.pid!,
    stdout: () => stdout,
    /** The notice, then one line per request. */
    stderr: () => stderr,
    /** Resolves once stderr holds `count` lines matching `pattern`. */
    logged: (pattern: RegExp, count = 1) =>
      vi.waitFor(() => {
        const lines = stderr.split('\n').filter((line) => pattern.test(line));
        if (lines.length < count) throw new Error(`${lines.length} of ${count} lines match ${pattern}; stderr: ${stderr}`);
        return lines;
      }, WAIT),
    /** Sends `signal` (Ctrl-C unless told); how the process ended. */
    stop: (signal: NodeJS.Signals = 'SIGINT') => {
      child.kill(signal);
      return exited;
    },
  };
  return new Promise<typeof sandbox & { baseUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`petctl sandbox printed no base URL; stderr: ${stderr}`)), 15_000);
    void exited.then(({ code }) => reject(new Error(`petctl sandbox exited ${code}; stderr: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      resolve({ ...sandbox, baseUrl: stdout.slice(0, stdout.indexOf('\n')) });
    });
  });
}
