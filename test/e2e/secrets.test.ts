import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, type CliResult, NODE, cleanEnv, configDirWith, newApiKey, runCli, tempDir } from '../helpers/cli';
import { type Reply, json, startScriptedServer } from '../helpers/scripted-server';

/**
 * The API key in no output (any mode, -v, any error) and no file but config.json; the login prompt echoes
 * nothing; loose modes are tightened; credentials in a base URL are refused unprinted.
 */

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const ERROR = (status: number, code: string) => json(status, { code, message: `server says ${code}`, status });

/** Server answers, by name, so a case reads as "pets list on a 429". */
const ANSWERS = {
  pets: json(200, [PET], { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60) }),
  pet: json(200, PET),
  created: json(201, PET),
  badRequest: ERROR(400, 'invalid_field'),
  unauthorized: ERROR(401, 'unauthorized'),
  notFound: ERROR(404, 'pet_not_found'),
  rateLimited: json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '600' }),
  banned: json(429, { code: 'key_banned', message: 'banned', status: 429 }, { 'retry-after': '600' }),
  serverError: ERROR(500, 'internal'),
  htmlGateway: { status: 502, headers: { 'content-type': 'text/html' }, body: '<html>502</html>' },
  notJson: { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>login</html>' },
  redirect: { status: 302, headers: { location: 'https://login.example.test/' }, body: '' },
  dropped: { destroy: true },
  hang: { hang: true },
} satisfies Record<string, Reply>;

interface SecretCase {
  args: string[];
  /** What the server answers (nothing: the command sends nothing). */
  answer?: keyof typeof ANSWERS;
  input?: string;
  /** The key comes from PETCTL_API_KEY rather than the stored profile. */
  envKey?: boolean;
  /** Written to a file in the run's config dir, whose path replaces `@FILE` in args. */
  file?: string;
  code: number;
}

const ROWS = '{"name":"Rex","categoryId":1}\n';

/**
 * Every command, on success and on each error it can meet. A new command adds
 * its lines here (e.g. `api`, `pets add --file`, `completion`); each line runs
 * in every output mode with -v.
 */
const CASES: SecretCase[] = [
  { args: ['pets', 'list'], answer: 'pets', code: 0 },
  { args: ['pets', 'list'], answer: 'pets', envKey: true, code: 0 },
  { args: ['pets', 'list', '--status', 'sold'], answer: 'unauthorized', code: 4 },
  { args: ['pets', 'list'], answer: 'unauthorized', envKey: true, code: 4 },
  { args: ['pets', 'list'], answer: 'rateLimited', code: 5 },
  { args: ['pets', 'list'], answer: 'banned', code: 5 },
  { args: ['pets', 'list'], answer: 'serverError', code: 7 },
  { args: ['pets', 'list'], answer: 'htmlGateway', code: 7 },
  { args: ['pets', 'list'], answer: 'notJson', code: 7 },
  { args: ['pets', 'list'], answer: 'redirect', code: 7 },
  { args: ['pets', 'list'], answer: 'dropped', code: 7 },
  { args: ['--timeout', '0.3', 'pets', 'list'], answer: 'hang', code: 7 },
  { args: ['pets', 'list', '--limit', '0'], code: 2 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'created', code: 0 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'badRequest', code: 6 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'unauthorized', code: 4 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'rateLimited', code: 5 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'dropped', code: 7 },
  { args: ['pets', 'add', '--name', 'Rex', '--category-id', '1'], answer: 'redirect', code: 7 },
  { args: ['pets', 'add', '--name', '', '--category-id', '1'], code: 2 },
  { args: ['pets', 'get', '1'], answer: 'pet', code: 0 },
  { args: ['pets', 'get', '5'], answer: 'notFound', code: 3 },
  { args: ['pets', 'get', '5'], answer: 'unauthorized', code: 4 },
  { args: ['auth', 'status'], answer: 'pets', code: 0 },
  { args: ['auth', 'status'], answer: 'pets', envKey: true, code: 0 },
  { args: ['auth', 'status'], answer: 'unauthorized', code: 4 },
  { args: ['auth', 'status'], answer: 'rateLimited', code: 5 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'pets', code: 0 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'pets', envKey: true, code: 0 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'unauthorized', code: 4 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'rateLimited', code: 5 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'dropped', code: 0 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: 'KEY', answer: 'serverError', code: 7 },
  { args: ['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], input: 'KEY', code: 0 },
  { args: ['auth', 'login', '--insecure-storage', '--with-token'], input: '', code: 2 },
  { args: ['auth', 'login', '--insecure-storage', '-p', 'nope', '--with-token'], input: 'KEY', code: 2 },
  { args: ['auth', 'logout'], code: 0 },
  { args: ['auth', 'logout'], envKey: true, code: 0 },
  { args: ['auth', 'logout', '-p', 'nope'], code: 2 },
  { args: ['profile', 'list'], code: 0 },
  { args: ['profile', 'list'], envKey: true, code: 0 },
  { args: ['profile', 'show'], code: 0 },
  { args: ['profile', 'show', 'prod'], envKey: true, code: 0 },
  { args: ['profile', 'show', 'nope'], code: 2 },
  { args: ['profile', 'set', 'prod', '--base-url', 'https://api2.example.test/v1'], code: 0 },
  { args: ['profile', 'set', 'prod', '--base-url', 'https://api2.example.test/v1'], envKey: true, code: 0 },
  { args: ['profile', 'set', 'prod', '--state-url', 'redis://:s3cret@127.0.0.1:6379/0'], code: 0 },
  { args: ['profile', 'set', 'prod'], code: 2 },
  { args: ['profile', 'set', 'nope', '--base-url', 'https://api2.example.test/v1'], code: 2 },
  { args: ['profile', 'add', 'staging', '--base-url', 'https://staging.example.test/v1'], code: 0 },
  { args: ['profile', 'add', 'prod', '--base-url', 'https://api.example.test/v1'], code: 2 },
  { args: ['profile', 'use', 'prod'], code: 0 },
  { args: ['profile', 'use', 'nope'], code: 2 },
  { args: ['profile', 'remove', 'nope'], code: 2 },
  { args: ['profile', 'remove', 'prod', '--yes'], code: 0 },
  { args: ['-p', 'sandbox', 'pets', 'list', '--limit', '1'], envKey: true, code: 4 },
  { args: ['api', '/pets'], answer: 'pets', code: 0 },
  { args: ['api', '-X', 'POST', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'], answer: 'created', code: 0 },
  { args: ['api', '/pets'], answer: 'unauthorized', code: 4 },
  { args: ['api', '/store/orders'], answer: 'redirect', code: 7 },
  { args: ['api', 'https://elsewhere.example.test/v1/pets'], code: 2 },
  { args: ['pets', 'add', '--file', '@FILE'], file: ROWS, answer: 'created', code: 0 },
  { args: ['pets', 'add', '--file', '@FILE'], file: ROWS, answer: 'unauthorized', code: 4 },
  { args: ['pets', 'add', '--file', '@FILE'], file: ROWS, answer: 'dropped', code: 7 },
  { args: ['pets', 'add', '--file', '@FILE', '--dry-run'], file: ROWS, code: 0 },
  { args: ['completion', 'bash'], code: 0 },
  { args: ['__complete', '--', '-p', ''], code: 0 },
];

const MODES = [[], ['-o', 'json'], ['-o', 'ndjson'], ['-o', 'csv']];

/** Every file under `dir` but config.json, with its contents. */
function filesButConfig(dir: string): Array<[string, string]> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.statSync(file).isFile() && path.basename(file) !== 'config.json')
    .map((file) => [file, fs.readFileSync(file, 'latin1')]);
}

/** Runs `count` jobs, `width` at a time: a few hundred processes at once would only thrash a small CI machine. */
async function inBatches(count: number, width: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await job(next++);
  }));
}

describe('the key never leaks', () => {
  it(`${CASES.length} cases × ${MODES.length} output modes, all with -v: not in any output, nor in any file but config.json`, { timeout: 300_000 }, async () => {
    const runs = CASES.flatMap((testCase) => MODES.map((mode) => ({ testCase, mode })));
    const codes: string[] = [];
    const expected: string[] = [];

    await inBatches(runs.length, 4, async (index) => {
      const { testCase, mode } = runs[index]!;
      // One server per run, so answers never cross between runs going at once.
      const own = await startScriptedServer(testCase.answer ? ANSWERS[testCase.answer] : undefined);
      try {
        const storedKey = newApiKey();
        const envKey = newApiKey();
        const dir = configDirWith({ activeProfile: 'prod', profiles: { prod: { baseUrl: own.baseUrl, apiKey: storedKey } } });
        const input = testCase.input === 'KEY' ? storedKey : testCase.input;
        const rowsFile = path.join(dir, 'rows.ndjson');
        if (testCase.file !== undefined) fs.writeFileSync(rowsFile, testCase.file);
        const args = testCase.args.map((arg) => (arg === '@FILE' ? rowsFile : arg));
        const result: CliResult = await runCli(['-v', '--retries', '0', '--max-wait', '0', ...mode, ...args], {
          env: { PETCTL_CONFIG_DIR: dir, ...(testCase.envKey ? { PETCTL_API_KEY: envKey } : {}) },
          input,
          // runCli rejects if either key is on stdout or stderr.
          secrets: [storedKey, envKey],
        });
        const label = `${[...mode, ...testCase.args].join(' ')}${testCase.answer ? ` on ${testCase.answer}` : ''}`;
        codes.push(`${label} → ${result.code}`);
        expected.push(`${label} → ${testCase.code}`);
        expect(result.stderr, label).not.toMatch(/    at /);
        for (const [file, text] of filesButConfig(dir)) {
          for (const key of [storedKey, envKey]) expect(text.includes(key), `${label}: key in ${path.basename(file)}`).toBe(false);
        }
        if (testCase.answer && testCase.answer !== 'hang') expect(own.requests.length, label).toBeLessThanOrEqual(1);
      } finally {
        await own.close();
      }
    });

    expect(codes.sort()).toEqual(expected.sort());
  });
});

/** Whether util-linux's `script` can give a command a pseudo-terminal here. */
const hasScript = spawnSync('script', ['-q', '-e', '-c', 'true', '/dev/null'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasScript)('auth login on a real terminal (a pty through util-linux script)', () => {
  it('prompts, echoes nothing of the key, and stores it', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const key = newApiKey();
    // --no-verify: the key is random, and the sandbox (this profile's service) would refuse it.
    const command = `${JSON.stringify(NODE)} ${JSON.stringify(BIN)} auth login --no-verify`;
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: cleanEnv({ PETCTL_CONFIG_DIR: dir }), stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
      // Type only once the prompt is up: before that the terminal itself would still echo.
      if (!typed && screen.includes('API key for profile "sandbox": ')) {
        typed = true;
        child.stdin.write(`${key.slice(0, 10)}x\u007f`);
        setTimeout(() => child.stdin.write(`${key.slice(10)}\r`), 50);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));

    expect(typed).toBe(true);
    expect(code).toBe(0);
    expect(screen).not.toContain(key);
    expect(screen).not.toContain(key.slice(0, 10));
    const stored = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as { profiles: { sandbox: { apiKey: string } } };
    expect(stored.profiles.sandbox.apiKey).toBe(key);
  });
});

describe.concurrent('files open to others are tightened, with a warning', () => {
  it('config.json 0644, state.json 0666 and the directory 0755 → 0600/0700, one warning each, then none; a command that fails still tightens first', async () => {
    const dir = tempDir();
    const key = newApiKey();
    const config = path.join(dir, 'config.json');
    const state = path.join(dir, 'state.json');
    fs.writeFileSync(config, JSON.stringify({ profiles: { prod: { baseUrl: 'https://api.example.test/v1', apiKey: key } } }));
    fs.writeFileSync(state, JSON.stringify({ version: 1, limits: {} }));
    fs.chmodSync(config, 0o644);
    fs.chmodSync(state, 0o666);
    fs.chmodSync(dir, 0o755);

    const first = await runCli(['-o', 'json', 'profile', 'show', 'nope'], { env: { PETCTL_CONFIG_DIR: dir }, secrets: [key] });
    const second = await runCli(['profile', 'list'], { env: { PETCTL_CONFIG_DIR: dir }, secrets: [key] });

    expect(first.code).toBe(2);
    const lines = first.stderr.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `warning: ${dir} was accessible to other users (mode 0755); changed it to 0700`,
      `warning: ${config} was accessible to other users (mode 0644); changed it to 0600`,
      `warning: ${state} was accessible to other users (mode 0666); changed it to 0600`,
    ]);
    // -o json keeps its one JSON error line last.
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[3]!)).toMatchObject({ code: 'usage_error' });
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
    expect(fs.statSync(state).mode & 0o777).toBe(0o600);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
  });
});

describe.concurrent('a base URL holding credentials is refused (exit 2), and its password never printed', () => {
  const PASSWORD = 'hunter2-s3cret-pw';
  // Each form of URL (a user name alone, loopback http) is refused in test/config/base-url.test.ts.
  const ways = [
    { how: '--base-url', args: ['--base-url', `https://user:${PASSWORD}@api.example.test/v1`, 'pets', 'list'], env: {} },
    { how: 'PETCTL_BASE_URL', args: ['pets', 'list'], env: { PETCTL_BASE_URL: `https://user:${PASSWORD}@api.example.test/v1` } },
    { how: 'profile add --base-url', args: ['profile', 'add', 'prod', '--base-url', `https://user:${PASSWORD}@api.example.test/v1`], env: {} },
  ];

  it.for(ways.flatMap((way) => [{ ...way, json: false }, { ...way, json: true }]))('$how (json $json)', async ({ args, env, json: asJson }) => {
    const dir = tempDir();
    const key = newApiKey();

    const result = await runCli([...(asJson ? ['-o', 'json'] : []), '-v', ...args], {
      env: { PETCTL_CONFIG_DIR: dir, PETCTL_API_KEY: key, ...env },
      secrets: [key, PASSWORD],
    });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/    at /);
    if (asJson) expect(JSON.parse(result.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'usage_error', status: 0 });
    else expect(result.stderr).toMatch(/^error: .*must not contain a user name or password \(usage_error\)$/m);
    // Nothing was stored either.
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) expect(fs.readFileSync(path.join(dir, name), 'utf8')).not.toContain(PASSWORD);
  });
});
