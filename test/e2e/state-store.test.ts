import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, SLACK_MS, newApiKey, ok, runCli, setupE2e, tempDir } from '../helpers/cli';
import { type RedisServer, freePort, noRedisServer, startRedisServer } from '../helpers/redis-server';
import { PET, json, startScriptedServer } from '../helpers/scripted-server';

/** Config directories ("machines") sharing a real redis-server, with and without a password. Time only from below. */

const PASSWORD = 'Tr0ub4dor-and-3-more-words';

/** A machine with a profile "shelters" on `baseUrl` whose state lives at `stateUrl`, using `key`. */
async function machine(baseUrl: string, stateUrl: string, key: string) {
  const configDir = tempDir();
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key };
  const run = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, secrets: [key, PASSWORD], timeoutMs: 150_000 });
  expect((await run(['profile', 'add', 'shelters', '--base-url', baseUrl, '--state-url', stateUrl])).code).toBe(0);
  await run(['profile', 'use', 'shelters']);
  return { configDir, run };
}

function warnings(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('warning: '));
}

function connected(result: CliResult, where: string): void {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toMatch(new RegExp(`^state-store: connect ${where.replace(/[./]/g, '\\$&')} -> ok in \\d+ ms`, 'm'));
  expect(warnings(result)).toEqual([]);
}

describe.skipIf(noRedisServer)('several machines, one key, one redis-server', () => {
  let redis: RedisServer;
  let locked: RedisServer;
  let bare: string;
  beforeAll(async () => {
    [redis, locked] = await Promise.all([startRedisServer(), startRedisServer({ password: PASSWORD })]);
    bare = `redis://127.0.0.1:${locked.port}/0`;
  });
  afterAll(async () => {
    await Promise.all([redis?.stop(), locked?.stop()]);
  });

  describe.concurrent('the store shared', () => {
    it('a 429 on machine A holds machine B: with too short a --max-wait it exits 5 at once; within it, it waits, then sends', async (t) => {
      const server = await startScriptedServer(json(200, [PET]), { closeAfter: t });
      const key = newApiKey();
      const a = await machine(server.baseUrl, redis.url, key);
      const b = await machine(server.baseUrl, redis.url, key);
      server.reply(json(429, { code: 'rate_limited', message: 'Too many requests', status: 429 }, { 'retry-after': '8' }));

      const first = await a.run(['--retries', '0', 'pets', 'list']);
      expect(first.code).toBe(5);
      const limitedAt = server.requests.at(-1)!.at;
      const refused = await b.run(['--max-wait', '0', 'pets', 'list']);
      expect(refused).toMatchObject({ code: 5, stdout: '' });
      expect(refused.stderr).toMatch(/error: rate limited \(HTTP 429, Retry-After\); nothing sent\. Try again at [\d: -]+, in \d+s \(rate_limited\)/);
      expect(server.requests).toHaveLength(1);

      const waited = await b.run(['--max-wait', '20', 'pets', 'list']);
      expect(waited).toMatchObject({ code: 0, stdout: '1\tRex\t1\tavailable\n' });
      expect(server.requests.at(-1)!.at - limitedAt).toBeGreaterThanOrEqual(8000 - SLACK_MS);
      // The block came through Redis, not B's own file.
      const bState = path.join(b.configDir, 'state.json');
      expect(fs.existsSync(bState) ? fs.readFileSync(bState, 'utf8') : '').not.toContain('blockedUntil');
      for (const result of [first, refused, waited]) expect(warnings(result)).toEqual([]);
    });

    it('finishes with one warning when redis-server stops mid-run, and nothing hangs; the next run cannot connect, says so once and goes on', async (t) => {
      const server = await startScriptedServer(json(200, [PET]), { closeAfter: t });
      const own = await startRedisServer();
      t.onTestFinished(() => own.stop());
      const a = await machine(server.baseUrl, own.url, newApiKey());
      server.reply({ status: 200, body: [PET], delayMs: 1_000 });
      const running = a.run(['pets', 'list']);
      await server.received(server.requests.length + 1);
      await own.kill();
      const result = await running;
      expect(result).toMatchObject({ code: 0, stdout: '1\tRex\t1\tavailable\n' });
      expect(warnings(result)).toEqual([
        expect.stringMatching(/^warning: cannot use the shared rate-limit state at redis:\/\/127\.0\.0\.1:\d+\/0: .+; using this machine's state file for the rest of this run$/),
      ]);
      const next = await ok(a.run(['pets', 'list']));
      expect(warnings(next)).toEqual([expect.stringContaining(': connection refused; using this machine')]);
    });

    it("rediss:// works once the server's certificate is trusted, and falls back on an untrusted one", async (t) => {
      const tls = await startRedisServer({ tls: true });
      t.onTestFinished(() => tls.stop());
      const server = await startScriptedServer(json(200, [PET]), { closeAfter: t });
      const a = await machine(server.baseUrl, tls.url, newApiKey());
      const trusted = await a.run(['-v', 'pets', 'list'], { NODE_EXTRA_CA_CERTS: tls.ca! });
      connected(trusted, tls.url);
      expect(trusted.stderr).not.toMatch(/DeprecationWarning/);
      const untrusted = await ok(a.run(['pets', 'list']));
      expect(warnings(untrusted)).toEqual([expect.stringContaining(': self-signed certificate; using this machine')]);
    });
  });

  describe.concurrent('the store password, never a flag and never printed', () => {
    it('from PETCTL_STATE_PASSWORD, or read by --state-password-stdin into config.json (0600) apart from the URL; -v traces, even with DEBUG=*, omit it; given twice, or none, refused', async (t) => {
      const { server, configDir, petctl } = await setupE2e(t, json(200, [PET]));
      const secrets = [PASSWORD];
      // DEBUG would make ioredis log AUTH/HELLO with the password; the bundle silences its debug module.
      const verbose = await petctl(['-v', 'pets', 'list'], { env: { PETCTL_STATE_URL: bare, PETCTL_STATE_PASSWORD: PASSWORD, DEBUG: '*' }, secrets });
      connected(verbose, bare);
      expect(verbose.stderr).toMatch(/state-store: acquire WATCH GET MULTI SET PX \d+ EXEC petctl:limit:[0-9a-f]{32} -> go in \d+ ms/);
      expect(verbose.stderr).toMatch(/state-store: record WATCH GET MULTI SET PX \d+ EXEC petctl:limit:[0-9a-f]{32} -> recorded/);

      expect((await petctl(['profile', 'add', 'shelters'], { secrets })).code).toBe(0);
      const set = await petctl(['profile', 'set', 'shelters', '--state-url', bare, '--state-password-stdin'], { input: `${PASSWORD}\n`, secrets });
      // setupE2e passes --base-url, so the base URL is "changed" to itself.
      expect(set.stderr).toMatch(/^no keychain available: the state store password is stored in \S+config\.json \(mode 0600\)\nProfile "shelters" changed: base URL \S+, state URL, state store password; its key is kept\.\n$/);
      const configFile = path.join(configDir, 'config.json');
      expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).profiles.shelters).toEqual({ baseUrl: server.baseUrl, stateUrl: bare, statePassword: PASSWORD });
      expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);
      expect((await petctl(['profile', 'show', 'shelters'], { secrets })).stdout).toContain(`State store: ${bare} (profile; password stored)\n`);

      connected(await petctl(['-v', '-p', 'shelters', 'pets', 'list'], { secrets }), bare);

      // profile add reads it too; refused (exit 2): a password given twice, none on standard input, or no state URL.
      const added = await petctl(['profile', 'add', 'other', '--base-url', server.baseUrl, '--state-url', bare, '--state-password-stdin'], { input: PASSWORD, secrets });
      expect(added.code, added.stderr).toBe(0);
      expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).profiles.other.statePassword).toBe(PASSWORD);
      const twice = await petctl(['profile', 'set', 'shelters', '--state-url', locked.url, '--state-password-stdin'], { input: PASSWORD, secrets });
      expect(twice).toMatchObject({ code: 2, stderr: 'error: the state URL holds a password and --state-password-stdin reads another (usage_error)\nhint: leave the password out of the URL\n' });
      const empty = await petctl(['profile', 'set', 'shelters', '--state-password-stdin'], { input: '\n', secrets });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(/^error: no state store password on standard input \(usage_error\)\n/);
      const noUrl = await petctl(['profile', 'add', 'plain', '--base-url', server.baseUrl, '--state-password-stdin'], { input: PASSWORD, secrets });
      expect(noUrl.code).toBe(2);
      expect(noUrl.stderr).toMatch(/^error: profile "plain" has no state URL for the password \(usage_error\)\n/);
    });

    it.for([
      ['the user-name slot', (pw: string) => `${pw}@`, '****@'],
      ['the password slot', (pw: string) => `:${pw}@`, ':****@'],
    ] as const)('in %s of the URL: it works, and profile list, profile show, -v and errors mask it', async ([, credentials, masked], t) => {
      const { server, petctl } = await setupE2e(t, json(200, [PET]));
      const secrets = [PASSWORD];
      const url = `redis://${credentials(PASSWORD)}127.0.0.1:${locked.port}/0`;
      expect((await petctl(['profile', 'add', 'shelters', '--base-url', server.baseUrl, '--state-url', url], { secrets })).code).toBe(0);
      expect((await petctl(['profile', 'use', 'shelters'], { secrets })).code).toBe(0);
      const shown = `redis://${masked}127.0.0.1:${locked.port}/0`;
      expect((await petctl(['profile', 'list'], { secrets })).stdout).toContain(shown);
      expect(JSON.parse((await petctl(['profile', 'list', '-o', 'json'], { secrets })).stdout)[1].stateUrl).toBe(shown);
      expect((await petctl(['profile', 'show'], { secrets })).stdout).toContain(`State store: ${shown} (profile; password in the URL)\n`);
      connected(await petctl(['-v', 'pets', 'list'], { secrets }), bare);

      // A store that is down, and a URL refused as invalid: neither says the password.
      const closed = await freePort();
      const down = await petctl(['-v', 'pets', 'list'], { env: { PETCTL_STATE_URL: `redis://${credentials(PASSWORD)}127.0.0.1:${closed}/0` }, secrets });
      expect(warnings(down)).toEqual([expect.stringContaining(`cannot use the shared rate-limit state at redis://127.0.0.1:${closed}/0: `)]);
      const invalid = await petctl(['profile', 'set', 'shelters', '--state-url', `redis://${credentials(PASSWORD)}127.0.0.1:${locked.port}/not-a-db`], { secrets });
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toMatch(/^error: --state-url may only name a database number/);
      expect((await petctl(['-o', 'json', 'pets', 'list'], { env: { PETCTL_STATE_URL: `redis://${credentials(PASSWORD)}127.0.0.1:${locked.port}/x` }, secrets })).code).toBe(2);
    });
  });
});
