import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliOptions, expectCleanError, setupE2e, tempDir } from '../helpers/cli';
import { json } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/** --cache against a scripted server, a private XDG_CACHE_HOME per test (the rules: test/api/cache.test.ts). */

const PETS = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Bella', categoryId: 1, status: 'pending' },
];
const PRINTED = '1\tRex\t1\tavailable\n2\tBella\t1\tpending\n';

async function setup(t: TestContext) {
  const e2e = await setupE2e(t, json(200, PETS));
  const cacheHome = tempDir('petctl-cache-');
  const responses = path.join(cacheHome, 'petctl', 'responses');
  const petctl = (args: string[], options: CliOptions = {}) => e2e.petctl(args, { ...options, env: { XDG_CACHE_HOME: cacheHome, ...options.env } });
  const entries = (): string[] =>
    (fs.existsSync(responses) ? fs.readdirSync(responses) : []).flatMap((target) => fs.readdirSync(path.join(responses, target)).map((name) => path.join(responses, target, name)));
  return { ...e2e, petctl, cacheHome, responses, entries };
}

describe.concurrent('--cache', () => {
  it('20 runs of pets list --cache 30s send one request, and print the same animals each time; -v, or a terminal, says where it came from', async (t) => {
    const { petctl, server, key, configDir, cacheHome } = await setup(t);
    const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key, XDG_CACHE_HOME: cacheHome };
    const outputs = new Set<string>();
    for (let run = 0; run < 20; run++) {
      const result = await petctl(['pets', 'list', '--status', 'available', '--cache', '30s']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      outputs.add(result.stdout);
    }
    expect([...outputs]).toEqual([PRINTED]);
    const verbose = await petctl(['pets', 'list', '--status', 'available', '--cache', '30s', '-v']);
    expect(verbose.stderr).toMatch(new RegExp(`^\\* base URL ${server.baseUrl} \\(from [^)]+\\); key .+\\n> GET ${server.baseUrl}/pets\\?status=available\\n< from cache, \\d+s old\\n$`));
    const tty = openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'list', '--status', 'available', '--cache', '30s'], env);
    expect(await tty.exitCode()).toBe(0);
    expect(tty.screen()).toMatch(/from cache, \d+s old/);
    expect(tty.stdout()).toBe(PRINTED);
    await petctl(['pets', 'list', '--status', 'pending', '--cache', '30s']);
    await petctl(['pets', 'list', '--status', 'available']);
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/pets?status=available', '/v1/pets?status=pending', '/v1/pets?status=available']);
  });

  it('a pets add, or api -X POST, in between makes the next list send again; so does a write that fails; api -f with --cache is refused', async (t) => {
    const { petctl, server } = await setup(t);
    await petctl(['pets', 'list', '--cache', '30s']);
    server.reply(json(201, { id: 3, name: 'Kiwi', categoryId: 2, status: 'available' }));
    expect((await petctl(['pets', 'add', '--name', 'Kiwi', '--category-id', '2', '--status', 'available'])).code).toBe(0);
    await petctl(['pets', 'list', '--cache', '30s']);
    await petctl(['pets', 'list', '--cache', '30s']);
    server.reply(json(201, { id: 4, name: 'Max', categoryId: 1 }));
    expect((await petctl(['api', '-X', 'POST', '/pets', '-F', 'name=Max', '-F', 'categoryId=1'])).code).toBe(0);
    await petctl(['pets', 'list', '--cache', '30s']);
    // A write that fails still clears: it may have been applied.
    server.reply(json(500, { code: 'internal', message: 'boom', status: 500 }));
    expect((await petctl(['api', '-X', 'DELETE', '/pets/1'])).code).toBe(7);
    await petctl(['pets', 'list', '--cache', '30s']);
    const fields = await petctl(['api', '/pets', '-f', 'status=available', '--cache', '1m']);
    expectCleanError(fields, 2);
    expect(fields.stderr).toContain('hint: fields without -X make a POST; add -X GET to send them as query parameters');
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/pets',
      'POST /v1/pets',
      'GET /v1/pets',
      'POST /v1/pets',
      'GET /v1/pets',
      'DELETE /v1/pets/1',
      'GET /v1/pets',
    ]);
  });

  it('keeps answers as private files without the key; cache clear removes only its own, of every target; a cache root others can write is not used, and clear refuses it', async (t) => {
    const { petctl, server, entries, responses, key } = await setup(t);
    await petctl(['pets', 'list', '--cache', '30s']);
    server.reply(json(200, PETS[0]!));
    expect((await petctl(['pets', 'get', '1', '--cache', '30s'])).code).toBe(0);
    await petctl(['pets', 'list', '--cache', '30s'], { env: { PETCTL_API_KEY: 'pk_test_second_key_for_clear_0000' }, secrets: ['pk_test_second_key_for_clear_0000'] });
    expect(entries().length).toBe(3);
    for (const file of entries()) {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(path.basename(file)).toMatch(/^[0-9a-f]{64}\.json$/);
      expect(fs.readFileSync(file, 'utf8')).not.toContain(key);
    }
    const stray = path.join(path.dirname(entries()[0]!), 'notes.json');
    fs.writeFileSync(stray, '{"mine":true}\n');
    expect(await petctl(['cache', 'clear'])).toMatchObject({ code: 0, stdout: '', stderr: `Removed 3 cached answers from ${responses}.\n` });
    expect(entries()).toEqual([stray]);
    expect(await petctl(['cache', 'clear'])).toMatchObject({ code: 0, stderr: `No cached answers in ${responses}.\n` });

    const root = path.dirname(responses);
    fs.chmodSync(root, 0o777);
    const warned = await petctl(['pets', 'list', '--cache', '30s']);
    expect(warned).toMatchObject({ code: 0, stdout: PRINTED, stderr: `warning: not using the response cache at ${responses}: other users can write to ${root} (mode 0777)\n` });
    const refused = await petctl(['cache', 'clear']);
    expectCleanError(refused, 1);
    expect(refused.stderr).toContain(`error: refusing to use ${root}: other users can write to it (mode 0777) (unsafe_file)`);
    expect(fs.statSync(root).mode & 0o777).toBe(0o777);
    expect(entries()).toEqual([stray]);
  });

  it('a cached answer is served while the key waits out a 429: nothing is sent, nothing waited (--max-wait 0)', async (t) => {
    const { petctl, server } = await setup(t);
    await petctl(['pets', 'list', '--cache', '5m']);
    server.reply(json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '120' }));
    expect((await petctl(['pets', 'list', '--limit', '3', '--retries', '0'])).code).toBe(5);
    expect(await petctl(['pets', 'list', '--cache', '5m', '--max-wait', '0'])).toMatchObject({ code: 0, stdout: PRINTED });
    expect((await petctl(['pets', 'list', '--limit', '4', '--cache', '5m', '--max-wait', '0'])).code).toBe(5);
    expect(server.requests).toHaveLength(2);
  });

  it('pets get --cache keeps the answer and its Sunset date; api --cache -i prints the stored head; an answer the specification does not allow is not kept', async (t) => {
    const { petctl, server, entries } = await setup(t);
    server.reply(json(200, PETS[0]!, { sunset: 'Sat, 01 Mar 2031 00:00:00 GMT' }), json(200, PETS, { 'x-custom': 'kept' }));
    const first = await petctl(['pets', 'get', '1', '--cache', '1m']);
    const second = await petctl(['pets', 'get', '1', '--cache', '1m']);
    expect(second).toMatchObject({ code: 0, stdout: first.stdout });
    expect(second.stderr).toContain('to be removed on 2031-03-01');
    await petctl(['api', '/pets', '--cache', '1m']);
    const head = await petctl(['api', '/pets', '--cache', '1m', '-i']);
    expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\n[^]*X-Custom: kept\n/i);
    expect(server.requests).toHaveLength(2);

    server.reply(json(200, [{ id: 'one', name: 'Rex' }]), json(200, { id: 1, name: 'Rex', categoryId: 'x' }));
    expect((await petctl(['pets', 'list', '--limit', '3', '--cache', '30s'])).code).toBe(7);
    expect((await petctl(['pets', 'get', '2', '--cache', '30s'])).code).toBe(7);
    expect(entries()).toHaveLength(2);
    expect((await petctl(['pets', 'list', '--limit', '3', '--cache', '30s'])).code).toBe(0);
    expect(server.requests).toHaveLength(5);
    server.verify();
  });
});
