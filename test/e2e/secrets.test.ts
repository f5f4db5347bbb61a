import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { type CliResult, configDirWith, newApiKey, runCli, tempDir } from '../helpers/cli';
import { type Reply, PET, json, startScriptedServer } from '../helpers/scripted-server';

/** The API key in no output and no file but config.json; loose modes tightened. */

const ERROR = (status: number, code: string) => json(status, { code, message: `server says ${code}`, status });

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
  /** The exit code after each answer (none: nothing is sent). */
  codes: Partial<Record<keyof typeof ANSWERS | 'none', number>>;
  input?: string;
  envKey?: boolean;
  /** Written to a file whose path replaces `@FILE` in args. */
  file?: string;
  env?: Record<string, string>;
}

const ROWS = '{"name":"Rex","categoryId":1}\n';
/** A base URL holding credentials is refused (its words: test/config/url-check.test.ts); its password is secret. */
const PASSWORD = 'hunter2-s3cret-pw';
const WITH_PASSWORD = `https://user:${PASSWORD}@api.example.test/v1`;
const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];
const LOGIN = ['auth', 'login', '--insecure-storage', '--with-token'];

/** Every command, on success and on each error it can meet; a new command adds its lines here. */
const CASES: SecretCase[] = [
  {
    args: ['pets', 'list'],
    codes: { pets: 0, rateLimited: 5, banned: 5, serverError: 7, htmlGateway: 7, notJson: 7, redirect: 7, dropped: 7 },
  },
  { args: ['pets', 'list'], envKey: true, codes: { pets: 0, unauthorized: 4 } },
  { args: ['pets', 'list', '--status', 'sold'], codes: { unauthorized: 4 } },
  { args: ['--timeout', '0.3', 'pets', 'list'], codes: { hang: 7 } },
  { args: ['pets', 'list', '--limit', '0'], codes: { none: 2 } },
  { args: ADD, codes: { created: 0, badRequest: 6, unauthorized: 4, rateLimited: 5, dropped: 7, redirect: 7 } },
  { args: ['pets', 'add', '--name', '', '--category-id', '1'], codes: { none: 2 } },
  { args: ['pets', 'get', '1'], codes: { pet: 0 } },
  { args: ['pets', 'get', '5'], codes: { notFound: 3, unauthorized: 4 } },
  { args: ['auth', 'status'], codes: { pets: 0, unauthorized: 4, rateLimited: 5 } },
  { args: ['auth', 'status'], envKey: true, codes: { pets: 0 } },
  { args: LOGIN, input: 'KEY', codes: { pets: 0, unauthorized: 4, rateLimited: 5, dropped: 0, serverError: 7 } },
  { args: LOGIN, input: 'KEY', envKey: true, codes: { pets: 0 } },
  { args: [...LOGIN, '--no-verify'], input: 'KEY', codes: { none: 0 } },
  { args: LOGIN, input: '', codes: { none: 2 } },
  { args: [...LOGIN, '-p', 'nope'], input: 'KEY', codes: { none: 2 } },
  { args: ['auth', 'logout'], codes: { none: 0 } },
  { args: ['auth', 'logout'], envKey: true, codes: { none: 0 } },
  { args: ['auth', 'logout', '-p', 'nope'], codes: { none: 2 } },
  { args: ['profile', 'list'], codes: { none: 0 } },
  { args: ['profile', 'list'], envKey: true, codes: { none: 0 } },
  { args: ['profile', 'show'], codes: { none: 0 } },
  { args: ['profile', 'show', 'prod'], envKey: true, codes: { none: 0 } },
  { args: ['profile', 'show', 'nope'], codes: { none: 2 } },
  { args: ['profile', 'set', 'prod', '--base-url', 'https://api2.example.test/v1'], codes: { none: 0 } },
  { args: ['profile', 'set', 'prod', '--base-url', 'https://api2.example.test/v1'], envKey: true, codes: { none: 0 } },
  { args: ['profile', 'set', 'prod', '--state-url', 'redis://:s3cret@127.0.0.1:6379/0'], codes: { none: 0 } },
  { args: ['profile', 'set', 'prod'], codes: { none: 2 } },
  { args: ['profile', 'set', 'nope', '--base-url', 'https://api2.example.test/v1'], codes: { none: 2 } },
  { args: ['profile', 'add', 'staging', '--base-url', 'https://staging.example.test/v1'], codes: { none: 0 } },
  { args: ['profile', 'add', 'prod', '--base-url', 'https://api.example.test/v1'], codes: { none: 2 } },
  { args: ['profile', 'use', 'prod'], codes: { none: 0 } },
  { args: ['profile', 'use', 'nope'], codes: { none: 2 } },
  { args: ['profile', 'remove', 'nope'], codes: { none: 2 } },
  { args: ['profile', 'remove', 'prod', '--yes'], codes: { none: 0 } },
  { args: ['-p', 'sandbox', 'pets', 'list', '--limit', '1'], envKey: true, codes: { none: 4 } },
  { args: ['api', '/pets'], codes: { pets: 0, unauthorized: 4 } },
  { args: ['api', '-X', 'POST', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'], codes: { created: 0 } },
  { args: ['api', '/store/orders'], codes: { redirect: 7 } },
  { args: ['api', 'https://elsewhere.example.test/v1/pets'], codes: { none: 2 } },
  { args: ['pets', 'add', '--file', '@FILE'], file: ROWS, codes: { created: 0, unauthorized: 4, dropped: 7 } },
  { args: ['pets', 'add', '--file', '@FILE', '--dry-run'], file: ROWS, codes: { none: 0 } },
  { args: ['--base-url', WITH_PASSWORD, 'pets', 'list'], envKey: true, codes: { none: 2 } },
  { args: ['pets', 'list'], envKey: true, env: { PETCTL_BASE_URL: WITH_PASSWORD }, codes: { none: 2 } },
  { args: ['profile', 'add', 'other', '--base-url', WITH_PASSWORD], codes: { none: 2 } },
  { args: ['completion', 'bash'], codes: { none: 0 } },
  { args: ['__complete', '--', '-p', ''], codes: { none: 0 } },
];

const MODES = [[], ['-o', 'json'], ['-o', 'ndjson'], ['-o', 'csv']];

function files(dir: string): Array<[string, string]> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => [file, fs.readFileSync(file, 'latin1')]);
}

it(`every command and answer × ${MODES.length} output modes, all with -v: not in any output, nor in any file but config.json (a password in none)`, { timeout: 300_000 }, async () => {
  const runs = CASES.flatMap((testCase) =>
    Object.entries(testCase.codes).flatMap(([answer, code]) =>
      MODES.map((mode) => ({ testCase, answer: answer as keyof typeof ANSWERS | 'none', code, mode })),
    ),
  );
  const codes: string[] = [];
  const expected: string[] = [];

  // Four at a time: a few hundred processes at once would thrash a small machine.
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const { testCase, answer, code, mode } = runs[next++]!;
      const own = await startScriptedServer(answer === 'none' ? undefined : ANSWERS[answer]);
      try {
        const storedKey = newApiKey();
        const envKey = newApiKey();
        const dir = configDirWith({ activeProfile: 'prod', profiles: { prod: { baseUrl: own.baseUrl, apiKey: storedKey } } });
        const input = testCase.input === 'KEY' ? storedKey : testCase.input;
        const rowsFile = path.join(dir, 'rows.ndjson');
        if (testCase.file !== undefined) fs.writeFileSync(rowsFile, testCase.file);
        const args = testCase.args.map((arg) => (arg === '@FILE' ? rowsFile : arg));
        const result: CliResult = await runCli(['-v', '--retries', '0', '--max-wait', '0', ...mode, ...args], {
          env: { PETCTL_CONFIG_DIR: dir, ...(testCase.envKey ? { PETCTL_API_KEY: envKey } : {}), ...testCase.env },
          input,
          secrets: [storedKey, envKey, PASSWORD],
        });
        const label = `${[...mode, ...testCase.args].join(' ')}${answer === 'none' ? '' : ` on ${answer}`}`;
        codes.push(`${label} → ${result.code}`);
        expected.push(`${label} → ${code}`);
        expect(result.stderr, label).not.toMatch(/    at /);
        for (const [file, text] of files(dir)) {
          const secrets = path.basename(file) === 'config.json' ? [envKey, PASSWORD] : [storedKey, envKey, PASSWORD];
          for (const secret of secrets) {
            expect(text.includes(secret), `${label}: a secret in ${path.basename(file)}`).toBe(false);
          }
        }
        if (answer !== 'none' && answer !== 'hang') expect(own.requests.length, label).toBeLessThanOrEqual(1);
      } finally {
        await own.close();
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);

  expect(codes.sort()).toEqual(expected.sort());
});

it.concurrent('files open to others are tightened, with a warning: config.json 0644, state.json 0666 and the directory 0755 → 0600/0700, one warning each, then none; a command that fails still tightens first', async () => {
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
  expect(lines).toHaveLength(4);
  expect(JSON.parse(lines[3]!)).toMatchObject({ code: 'usage_error' });
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  expect(fs.statSync(config).mode & 0o777).toBe(0o600);
  expect(fs.statSync(state).mode & 0o777).toBe(0o600);
  expect(second.code).toBe(0);
  expect(second.stderr).toBe('');
});
