import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type TestContext, expect } from 'vitest';
import { type RecordedRequest, type Reply, type ScriptedServerOptions, startScriptedServer } from './scripted-server';
import { type CliOptions, type CliResult, spawnCli } from './spawn-cli';
import { tempDir } from './temp-dir';

export { tempDir };
export { type CliOptions, type CliResult, assertNoSecrets, cleanEnv } from './spawn-cli';

/** A fresh config folder holding `config` as its config.json (0600): an object as JSON, text as given. */
export function configDirWith(config?: object | string): string {
  const dir = tempDir();
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config), { mode: 0o600 });
  return dir;
}

/** `content` written to `dir/name`: the file's path. */
export function writeInput(dir: string, name: string, content: Buffer | string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

/** The built binary, run as a user would: `node bin/petctl.js ...`. */
export const BIN = fileURLToPath(new URL('../../bin/petctl.js', import.meta.url));

/** The Node.js that runs petctl: this one, or PETCTL_TEST_NODE (.ci/run runs the e2e suite under Node 22 and 24 too). */
export const NODE = process.env.PETCTL_TEST_NODE || process.execPath;

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return spawnCli(NODE, [BIN, ...args], { timeoutMs: 25_000, ...options });
}

/** Runs a command line as a person pastes it into bash, `petctl` being the built binary. */
export function inBash(command: string, env: Record<string, string>): Promise<CliResult> {
  return spawnCli('bash', ['-c', `petctl() { "$TEST_NODE" "$TEST_BIN" "$@"; }\n${command}`], { env: { ...env, TEST_NODE: NODE, TEST_BIN: BIN } });
}

/** runCli bound to one test's config dir, key and server: `args` go first; per-call env and secrets add to these. */
export function cliSession(
  defaults: Pick<CliOptions, 'env' | 'secrets'> & { args?: string[] },
): (args: string[], options?: CliOptions) => Promise<CliResult> {
  return (args, options = {}) =>
    runCli([...(defaults.args ?? []), ...args], {
      ...options,
      env: { ...defaults.env, ...options.env },
      secrets: [...(defaults.secrets ?? []), ...(options.secrets ?? [])],
    });
}

/** 2^53 + 1, an int64 id JSON.parse would make ...992: printed exact, or petctl lost a digit. */
export const BIG = '9007199254740993';

/** The version petctl sends in User-Agent: petctl/<version>. */
export const PACKAGE_VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A fresh API key per test: long and random, so finding it in any output can only mean a leak. */
export function newApiKey(): string {
  return `pk_test_${randomBytes(16).toString('hex')}`;
}

export type E2eSetup = Awaited<ReturnType<typeof setupE2e>>;

/** One scripted server, config dir and key per test; the server closed through the test's own context (safe in describe.concurrent). */
export async function setupE2e(t: Pick<TestContext, 'onTestFinished'>, fallback?: Reply, serverOptions?: ScriptedServerOptions) {
  const server = await startScriptedServer(fallback, { ...serverOptions, closeAfter: t });
  const key = newApiKey();
  const configDir = tempDir();
  // petctl with this test's config dir, key and --base-url; it rejects if the key is ever printed.
  const petctl = cliSession({ args: ['--base-url', server.baseUrl], env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, secrets: [key] });
  return { server, key, configDir, petctl };
}

/** What petctl puts on every request: the bearer key, Accept and its User-Agent. */
export function expectPetctlHeaders(request: RecordedRequest, key: string): void {
  expect(request.headers.authorization).toBe(`Bearer ${key}`);
  expect(request.headers.accept).toBe('application/json');
  expect(request.headers['user-agent']).toBe(`petctl/${PACKAGE_VERSION}`);
}

/** A failure reported the way petctl promises: exit `code` (when given), a message on stderr, nothing on stdout,
 * never a stack trace. */
export function expectCleanError(result: CliResult, code?: number): void {
  if (code !== undefined) expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).not.toContain('    at ');
  expect(result.stderr).not.toMatch(/unexpected failure|TypeError|RangeError|SyntaxError/);
  expect(result.stdout).toBe('');
}

/** `run`'s result once it has ended with exit 0 (else the test fails, showing its stderr). */
export async function ok(run: Promise<CliResult>): Promise<CliResult> {
  const result = await run;
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** With -o json|ndjson an error is exactly one JSON line on stderr; returns it parsed. */
export function jsonError(result: CliResult): Record<string, unknown> {
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** How far timers and two processes' clocks may disagree: a lower bound on time gives this much. */
export const SLACK_MS = 50;

/** For vi.waitFor, whose 1 s default fails on a loaded two-core machine: a generous bound costs nothing when it holds. */
export const WAIT = { timeout: 10_000, interval: 20 };

/** Whether nothing listens on 127.0.0.1:`port` (e.g. the sandbox's default 4010), so a test may expect a refused connection there. */
export async function loopbackPortIsFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  const free = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (free) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return free;
}
