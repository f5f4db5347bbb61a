import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary, run as a user would: `node bin/petctl.js ...`. */
export const BIN = fileURLToPath(new URL('../../bin/petctl.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** Called once the child is started, e.g. to send it a signal. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  timeoutMs?: number;
  /**
   * Strings that must never be printed (API keys). runCli rejects when one
   * shows up in stdout or stderr, so every test that passes its key here
   * checks for leaks without asserting it itself.
   */
  secrets?: string[];
}

export class SecretLeakError extends Error {}

/** Throws when any of `secrets` appears in the output; the message never repeats the secret. */
export function assertNoSecrets(result: Pick<CliResult, 'stdout' | 'stderr'>, secrets: readonly string[]): void {
  for (const [index, secret] of secrets.entries()) {
    if (secret === '') continue;
    for (const stream of ['stdout', 'stderr'] as const) {
      if (result[stream].includes(secret)) throw new SecretLeakError(`secret #${index} (length ${secret.length}) was printed on ${stream}`);
    }
  }
}

/** A fresh, private config dir per test, so tests never share profiles or rate-limit state. */
export function tempConfigDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-test-'));
}

/** The env petctl sees: nothing from the developer's own shell that could change behaviour. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color' };
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, signal, stdout, stderr };
      try {
        assertNoSecrets(result, options.secrets ?? []);
      } catch (error) {
        return reject(error);
      }
      resolve(result);
    });
    child.stdin.end(options.input ?? '');
    options.onSpawn?.(child);
  });
}

export interface CliDefaults {
  /** Arguments put before each call's own, e.g. ['--base-url', url]. */
  args?: string[];
  env?: Record<string, string | undefined>;
  secrets?: string[];
}

/** A runCli bound to one test's config dir, key and server; per-call env and secrets add to the defaults. */
export function cliSession(defaults: CliDefaults): (args: string[], options?: CliOptions) => Promise<CliResult> {
  return (args, options = {}) =>
    runCli([...(defaults.args ?? []), ...args], {
      ...options,
      env: { ...defaults.env, ...options.env },
      secrets: [...(defaults.secrets ?? []), ...(options.secrets ?? [])],
    });
}
