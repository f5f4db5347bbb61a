import { spawn } from 'node:child_process';
import { type TestContext, onTestFinished } from 'vitest';
import { BIN, NODE, cleanEnv } from './cli';

export interface SandboxProcess {
  /** Its first stdout line. */
  baseUrl: string;
  stdout(): string;
  /** Its stderr so far: the notice, then one line per request. */
  stderr(): string;
  /** Resolves once stderr holds `count` lines matching `pattern`. */
  logged(pattern: RegExp, count?: number): Promise<string[]>;
  /** Sends `signal` (Ctrl-C unless told) and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `petctl sandbox <args>` (the built binary) for the rest of the running test, `t` in describe.concurrent (where the
 * global onTestFinished cannot tell the tests apart); resolves once it prints its base URL.
 */
export function startSandboxProcess(
  args: string[],
  { env = {}, t = { onTestFinished } }: { env?: Record<string, string>; t?: Pick<TestContext, 'onTestFinished'> } = {},
): Promise<SandboxProcess> {
  const child = spawn(NODE, [BIN, 'sandbox', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  t.onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  const stderrListeners = new Set<() => void>();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    for (const listener of stderrListeners) listener();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`petctl sandbox printed no base URL; stderr: ${stderr}`)), 15_000);
    void exited.then(({ code }) => reject(new Error(`petctl sandbox exited ${code}; stderr: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      resolve({
        baseUrl: stdout.slice(0, stdout.indexOf('\n')),
        stdout: () => stdout,
        stderr: () => stderr,
        logged: (pattern, count = 1) =>
          new Promise((done) => {
            const check = () => {
              const lines = stderr.split('\n').filter((line) => pattern.test(line));
              if (lines.length < count) return;
              stderrListeners.delete(check);
              done(lines);
            };
            stderrListeners.add(check);
            check();
          }),
        stop: (signal = 'SIGINT') => {
          child.kill(signal);
          return exited;
        },
      });
    });
  });
}
