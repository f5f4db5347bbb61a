import { spawn } from 'node:child_process';

/** A command run to its end, its output kept. Plain Node, no vitest: bench/crowd.mjs bundles it through crowd.ts. */

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** The working directory, for paths given as a user types them (`--file intake.csv`). */
  cwd?: string;
  /** Called once the child is started, e.g. to send it a signal. */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
  timeoutMs?: number;
  /** Strings never to be printed (API keys): runCli rejects when one shows up, so every test passing its key checks for leaks. */
  secrets?: string[];
}

/** Throws when any of `secrets` appears in the output; the message never repeats the secret. */
export function assertNoSecrets(result: Pick<CliResult, 'stdout' | 'stderr'>, secrets: readonly string[]): void {
  for (const [index, secret] of secrets.entries()) {
    if (secret === '') continue;
    for (const stream of ['stdout', 'stderr'] as const) {
      if (result[stream].includes(secret)) throw new Error(`secret #${index} (length ${secret.length}) was printed on ${stream}`);
    }
  }
}

/** The env petctl sees: nothing from the developer's own shell that could change behaviour. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color' };
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}

export function spawnCli(file: string, args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: cleanEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
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
    // A child may end before reading all its input (a refused import): its closed pipe is no test failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    options.onSpawn?.(child);
  });
}
