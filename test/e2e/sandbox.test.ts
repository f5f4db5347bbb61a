import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BIN, NODE, WAIT, cliSession, newApiKey, ok, runCli, tempDir } from '../helpers/cli';
import { PET, json, startScriptedServer } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';
import { storedPets, writeSandboxData } from '../helpers/sandbox-data';
import { startSandboxProcess } from '../helpers/sandbox-process';
import { ENTERPRISE, call } from '../sandbox/helpers';

/**
 * `petctl sandbox` in the foreground, the built-in sandbox's word on a write, and its size bounded (its keys are
 * public and a loopback port is any local user's): 413 over 64 KiB, 507 at --max-animals.
 */

/** A request log line: the local time it ended, then method, target, status, plan, duration. */
const TIME = String.raw`\d\d:\d\d:\d\d`;

it('petctl sandbox prints the base URL, then the keys; petctl --base-url <its URL> works with the default key, animals in memory, --max-animals held there too, a 413 exit 6; it logs each request by plan, never by key, and ends by SIGINT, freeing the port', async (t) => {
  const configDir = tempDir();
  const sandbox = await startSandboxProcess(['--port', '0', '--max-animals', '14'], { t, env: { PETCTL_CONFIG_DIR: tempDir() } });
  expect(sandbox.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  expect(sandbox.baseUrl).not.toMatch(/:0\/v1$/);
  // The key table itself: test/commands/sandbox-run.test.ts.
  await vi.waitFor(() => expect(sandbox.stdout()).toMatch(/\nsandbox-enterprise +enterprise .*\n$/), WAIT);
  expect(sandbox.stdout().startsWith(`${sandbox.baseUrl}\nKEY `)).toBe(true);
  expect((await sandbox.logged(/listening on/))[0]).toContain(`listening on ${sandbox.baseUrl}`);

  const petctl = cliSession({ args: ['--base-url', sandbox.baseUrl], env: { PETCTL_CONFIG_DIR: configDir } });
  expect(await petctl(['pets', 'list', '--limit', '2'])).toMatchObject({ code: 0, stdout: '1\tRex\t1\tavailable\n2\tBella\t1\tpending\n', stderr: '' });
  const status = JSON.parse((await petctl(['auth', 'status', '-o', 'json'])).stdout);
  expect(status).toMatchObject({ baseUrl: sandbox.baseUrl, baseUrlSource: 'flag', keySource: 'sandbox-default', rateLimit: { limit: 60 } });
  const added = await petctl(['pets', 'add', '--name', 'Visitor', '--category-id', '3', '-o', 'json']);
  expect(JSON.parse(added.stdout)).toEqual({ id: 13, name: 'Visitor', categoryId: 3 });
  expect(fs.existsSync(path.join(configDir, 'sandbox-data.json'))).toBe(false);
  // The 12 sample animals, Visitor and one more.
  const create = () => call(sandbox.baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'm', categoryId: 1 } });
  expect((await create()).status).toBe(201);
  const refused = await create();
  expectErrorBody(refused, 507, 'insufficient_storage');
  expect(refused.headers['x-ratelimit-limit']).toBe('5000');
  const tooLarge = await petctl(['pets', 'add', '--name', 'y'.repeat(65_537), '--category-id', '1']);
  expect(tooLarge).toMatchObject({ code: 6, stdout: '', stderr: 'error: the request body exceeds 65536 bytes (64 KiB) (payload_too_large, HTTP 413)\n' });
  expect((await call(sandbox.baseUrl, '/pets', { key: null })).status).toBe(401);
  await sandbox.logged(new RegExp(`^${TIME} GET /v1/pets\\?limit=2 200 free \\d+ms$`));
  await sandbox.logged(new RegExp(`^${TIME} POST /v1/pets 201 free `));
  await sandbox.logged(new RegExp(`^${TIME} GET /v1/pets 401 - \\d+ms$`));
  expect(sandbox.stderr()).not.toContain('sandbox-free');

  expect(await sandbox.stop('SIGINT')).toEqual({ code: null, signal: 'SIGINT' });
  await expect(call(sandbox.baseUrl, '/pets')).rejects.toThrow();
});

function expectErrorBody(reply: { status: number; body: unknown; headers: Record<string, string> }, status: number, code: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.body).toEqual({ code, message: expect.any(String), status });
}

it('a script starts it in the background and reads the base URL off the first line of a file, as docs/sandbox.md shows (piped to head -1, the sandbox would end with the pipe)', async () => {
  const dir = tempDir();
  // petctl on PATH as an install puts it, so that $! is the sandbox itself.
  fs.writeFileSync(path.join(dir, 'petctl'), `#!/bin/sh\nexec "${NODE}" "${BIN}" "$@"\n`, { mode: 0o755 });
  const recipe = [
    'petctl sandbox --port 0 > sandbox.out 2> /dev/null &',
    'until url=$(head -n 1 sandbox.out) && [ -n "$url" ]; do sleep 0.1; done',
    'petctl --base-url "$url" pets list --limit 1; echo "exit $?"',
    'kill $!; wait $!; echo "sandbox $?"',
  ].join('\n');
  const env = { PATH: `${dir}:${process.env.PATH}`, PETCTL_CONFIG_DIR: path.join(dir, 'config'), HOME: dir };
  const options = { cwd: dir, env, timeout: 20_000 };
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile('bash', ['-c', recipe], options, (error, out) => (error ? reject(error) : resolve(out))),
  );
  expect(stdout).toBe('1\tRex\t1\tavailable\nexit 0\nsandbox 143\n');
});

describe('--max-animals', () => {
  it('an import that meets the cap stops with exit 7, the row not sent rather than unknown; a create is refused once (507), lists go on; a restart with room sends only that row', async () => {
    const dir = tempDir();
    // No animal in it: the cap counts only what the test creates.
    const dataFile = path.join(dir, 'pets.json');
    writeSandboxData(dataFile, '[]');
    const rows = path.join(dir, 'rows.ndjson');
    fs.writeFileSync(rows, ['r1', 'r2', 'r3'].map((name) => `{"name":"${name}","categoryId":1}`).join('\n'));
    const env = { PETCTL_CONFIG_DIR: path.join(dir, 'config'), PETCTL_API_KEY: ENTERPRISE };
    let sandbox = await startSandboxProcess(['--port', '0', '--data', dataFile, '--max-animals', '2']);
    const petctl = (...args: string[]) => runCli(['--base-url', sandbox.baseUrl, ...args], { env });
    const full = 'the sandbox holds 2 animals and keeps at most 2 (--max-animals); this one was not created';

    const stopped = await petctl('pets', 'add', '--file', rows, '--concurrency', '1');
    expect(stopped.code, stopped.stderr).toBe(7);
    expect(stopped.stderr).toMatch(/^created 2, skipped 0, rejected 0, invalid 0, unknown 0 in /m);
    expect(stopped.stderr).toContain(`error: ${full}; the import stopped, 1 row not sent yet; rerun the same command to resume (insufficient_storage, HTTP 507)\n`);
    expect(stopped.stderr).not.toMatch(/retry-unknown/);
    const json = await petctl('-o', 'json', 'pets', 'add', '--name', 'd', '--category-id', '1');
    expect(json).toMatchObject({ code: 7, stdout: '' });
    expect(JSON.parse(json.stderr)).toEqual({ code: 'insufficient_storage', message: full, status: 507 });
    expect(await petctl('pets', 'list')).toMatchObject({ code: 0, stdout: '1\tr1\t1\t-\n2\tr2\t1\t-\n' });
    // Each refused create was sent once: the list's line comes after them.
    await expect.poll(() => sandbox.stderr()).toMatch(/GET \/v1\/pets 200 /);
    expect(sandbox.stderr().match(/POST \/v1\/pets 507 /g)).toHaveLength(2);
    await sandbox.stop();

    // The same port, so the same target (and journal).
    sandbox = await startSandboxProcess(['--port', new URL(sandbox.baseUrl).port, '--data', dataFile, '--max-animals', '3']);
    const rerun = await ok(petctl('pets', 'add', '--file', rows));
    expect(rerun.stderr).toMatch(/^created 1, skipped 2, rejected 0, invalid 0, unknown 0 in /m);
    expectErrorBody(await call(sandbox.baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'f', categoryId: 1 } }), 507, 'insufficient_storage');
    expect(storedPets(dataFile).map((pet) => pet.name)).toEqual(['r1', 'r2', 'r3']);
  });

  it('two sandbox processes on one data file, creates racing through both: exactly the cap is stored, every other create is 507', async () => {
    const dataFile = path.join(tempDir(), 'pets.json');
    writeSandboxData(dataFile, '[]');
    const args = ['--port', '0', '--data', dataFile, '--max-animals', '10'];
    const [one, two] = await Promise.all([startSandboxProcess(args), startSandboxProcess(args)]);
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call((i % 2 === 0 ? one : two).baseUrl, '/pets', { key: ENTERPRISE, body: { name: `race-${i}`, categoryId: 1 } })),
    );
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(10);
    for (const reply of replies.filter((reply) => reply.status !== 201)) expectErrorBody(reply, 507, 'insufficient_storage');
    const stored = storedPets(dataFile);
    expect(stored.map((pet) => pet.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stored).toEqual(expect.arrayContaining(replies.filter((reply) => reply.status === 201).map((reply) => reply.body) as object[]));
  });

  it('the built-in sandbox profile keeps at most 100,000 animals: pets add at that count exits 7 saying so', async () => {
    const configDir = tempDir();
    const dataFile = path.join(configDir, 'sandbox-data.json');
    writeSandboxData(dataFile, JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ id: i + 1, name: `n${i}`, categoryId: 1 }))));
    const result = await runCli(['pets', 'add', '--name', 'one more', '--category-id', '1'], { env: { PETCTL_CONFIG_DIR: configDir } });
    expect(result).toMatchObject({
      code: 7,
      stdout: '',
      stderr: 'error: the sandbox holds 100000 animals and keeps at most 100000 (--max-animals); this one was not created (insufficient_storage, HTTP 507)\n',
    });
    expect(storedPets(dataFile)).toHaveLength(100_000);
  });
});

const LINE = 'sandbox: created in the built-in sandbox, not a real service';
const times = (text: string) => text.split(LINE).length - 1;
const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];

describe.concurrent('a write to the built-in sandbox, on a terminal', () => {
  it.for([
    { what: 'pets add', args: () => [...ADD, '--status', 'available'], said: 1 },
    { what: 'api POST', args: () => ['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'], said: 1 },
    { what: 'a bulk import of three rows (not once a row)', args: (dir: string) => ['pets', 'add', '--file', path.join(dir, 'rows.ndjson')], said: 1 },
    { what: 'a read (pets list)', args: () => ['pets', 'list', '--limit', '1'], said: 0 },
  ])('$what says so $said time(s) on stderr, never on stdout', async ({ args, said }, t) => {
    const configDir = tempDir();
    fs.writeFileSync(path.join(configDir, 'rows.ndjson'), ['Rex', 'Tom', 'Kit'].map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
    const tty = openTerminal(t, args(configDir), { PETCTL_CONFIG_DIR: configDir });
    expect(await tty.exitCode()).toBe(0);
    expect(times(tty.text())).toBe(said);
    expect(tty.stdout()).not.toContain(LINE);
  });

  it('a piped write says nothing (and the next on a terminal still does), nor a write on a terminal to a service a profile points at', async (t) => {
    const configDir = tempDir();
    const piped = await ok(cliSession({ env: { PETCTL_CONFIG_DIR: configDir } })(ADD));
    expect(piped.stderr).not.toContain(LINE);
    const builtIn = openTerminal(t, ADD, { PETCTL_CONFIG_DIR: configDir });
    expect(await builtIn.exitCode()).toBe(0);
    expect(times(builtIn.text())).toBe(1);

    // A sandbox the user started is a service like another.
    const started = await startScriptedServer(json(201, PET), { closeAfter: t });
    fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: started.baseUrl } } }), { mode: 0o600 });
    const elsewhere = openTerminal(t, ADD, { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: newApiKey() });
    expect(await elsewhere.exitCode()).toBe(0);
    expect(started.requests).toHaveLength(1);
    expect(times(elsewhere.text())).toBe(0);
  });
});
