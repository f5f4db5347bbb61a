import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, inBash, jsonError, setupE2e, tempDir } from '../helpers/cli';
import { startScriptedServer } from '../helpers/scripted-server';
import { writeSandboxData } from '../helpers/sandbox-data';
import { linkedPage, refusedPastMaxWait } from '../helpers/linked-pages';

/**
 * `petctl api --paginate` on the built-in sandbox (Link rel="next"), and on scripted servers for what it
 * never sends: a page that is no array, a next link off origin, a 429 past --max-wait.
 */

const BIG = '9007199254740993'; // 2^53 + 1: JSON.parse would make it ...992

/** 25 animals, ids 1..24 and 2^53 + 1: 7 pages of 4. */
function sandboxWith25() {
  const configDir = tempDir();
  const ids = [...Array.from({ length: 24 }, (_, index) => String(index + 1)), BIG];
  const statuses = ['available', 'pending', 'sold'];
  writeSandboxData(
    path.join(configDir, 'sandbox-data.json'),
    `[${ids.map((id, index) => `{"id":${id},"name":"Pet ${id}","categoryId":1,"status":"${statuses[index % 3]}"}`).join(',')}]`,
  );
  return cliSession({ env: { PETCTL_CONFIG_DIR: configDir } });
}

const ALL_IDS = [...Array.from({ length: 24 }, (_, index) => String(index + 1)), BIG];

/** The ids in printed JSON, digit for digit. */
function idsIn(text: string): string[] {
  return [...text.matchAll(/"id": ?(\d+)/g)].map((match) => match[1]!);
}

describe.concurrent('petctl api --paginate on the sandbox', () => {
  it('follows 7 pages: one JSON array of every item, int64-exact (by default and -o json), one item a line (-o ndjson); --query sees the one array; fields go in the first page\'s query, kept by the next links', async () => {
    const petctl = sandboxWith25();
    const queried = await petctl(['api', '--paginate', '/pets?limit=4', '--query', 'length(@)', '-v']);
    expect(queried.code, queried.stderr).toBe(0);
    expect(queried.stdout).toBe('25\n');
    expect(queried.stderr.match(/^page \d+: \d+ items, /gm)).toEqual([...Array.from({ length: 6 }, (_, index) => `page ${index + 1}: 4 items, `), 'page 7: 1 items, ']);
    expect(queried.stderr).toMatch(/^page 7: 1 items, no next link$/m);
    for (const flags of [[], ['-o', 'json']]) {
      const result = await petctl(['api', '--paginate', '/pets?limit=4', ...flags]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveLength(25);
      expect(idsIn(result.stdout)).toEqual(ALL_IDS);
      expect(result.stderr).toBe('');
    }
    const ndjson = await petctl(['api', '--paginate', '/pets', '-F', 'limit=4', '-o', 'ndjson']);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout.split('\n').filter(Boolean).map((line) => idsIn(line)[0])).toEqual(ALL_IDS);
    const pending = await petctl(['api', '--paginate', '/pets', '-F', 'limit=2', '-f', 'status=pending', '--query', '[].id', '-o', 'json']);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout.replace(/\s+/g, '')).toBe('[2,5,8,11,14,17,20,23]');
  });
});

describe.concurrent('petctl api --paginate: what it refuses', () => {
  it('a page that is not a JSON array ends with exit 7 naming its URL, after printing the pages before it as a closed array', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(linkedPage(`[{"id":1},{"id":${BIG}}]`, '/v1/orders?page=2'), linkedPage({ orders: [{ id: 3 }] }));
    const result = await petctl(['api', '--paginate', '/orders']);
    expect(result.code).toBe(7);
    expect(idsIn(result.stdout)).toEqual(['1', BIG]);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    // One error line and nothing else: no stack, no way on (the same page would come again).
    expect(result.stderr).toBe(`error: page 2 (GET ${server.baseUrl}/orders?page=2) is a JSON object, not a JSON array; --paginate needs every page to be one (invalid_response, HTTP 200)\n`);
    server.verify();

    server.reply(linkedPage('not json at all'));
    const json = await petctl(['api', '--paginate', '/orders', '-o', 'json']);
    expect(json.code).toBe(7);
    expect(json.stdout).toBe('[]\n');
    expect(jsonError(json)).toMatchObject({ code: 'invalid_response' });
    expect(String(jsonError(json).message)).toContain(`page 1 (GET ${server.baseUrl}/orders) is not JSON`);
  });

  it('a next link to another origin is never requested: exit 7, the key stays, no way on offered', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const other = await startScriptedServer(linkedPage([]));
    t.onTestFinished(() => other.close());
    server.reply(linkedPage([{ id: 1 }], `${other.baseUrl}/orders?page=2`));
    const result = await petctl(['api', '--paginate', '/orders', '-o', 'ndjson']);
    expect(result.code).toBe(7);
    expect(result.stdout).toBe('{"id":1}\n');
    expect(result.stderr).toContain(`page 1's next link points to another origin (http://127.0.0.1:${other.port}); not followed`);
    expect(result.stderr).not.toContain('continue with');
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe.concurrent('petctl api --paginate stopped', () => {
  it('by a 429 past --max-wait: the array so far stays valid, stderr counts the items and gives the command that continues, -H named', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    server.reply(linkedPage([{ id: 1 }, { id: 2 }], '/v1/orders?page=2'), linkedPage(`[{"id":3},{"id":${BIG}}]`, '/v1/orders?page=3&x=$(exit%209)'), refusedPastMaxWait);
    const first = await petctl(['--max-wait', '1', 'api', '--paginate', '/orders', '-H', 'X-Trace: a b', '-o', 'json']);
    expect(first.code).toBe(5);
    expect(idsIn(first.stdout)).toEqual(['1', '2', '3', BIG]);
    const stop = /^stopped after 4 items \(page 3\); continue with: (.+)$/m.exec(first.stderr);
    expect(stop, first.stderr).not.toBeNull();
    expect(stop![1]).toBe(`petctl api --paginate '/orders?page=3&x=$(exit%209)' -H 'X-Trace: <value>' --base-url ${server.baseUrl} -o json`);
    // With -o json the error is the last line, as JSON.
    expect(JSON.parse(first.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ code: 'rate_limited', status: 429 });

    server.reply(linkedPage([{ id: 5 }]));
    // The header's value, hidden in the printed command, put back as its note says.
    const rest = await inBash(stop![1]!.replace('<value>', 'a b'), { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key });
    expect(rest.code, rest.stderr).toBe(0);
    expect(idsIn(rest.stdout)).toEqual(['5']);
    const last = server.requests.at(-1)!;
    expect(last.url).toBe('/v1/orders?page=3&x=$(exit%209)');
    expect(last.headers['x-trace']).toBe('a b');
    expect(server.requests.map((request) => request.headers['x-trace'])).toEqual(['a b', 'a b', 'a b', 'a b']);
    server.verify();
  });

  it('prints no -H value: each header by its name with <value>, said once; the secret appears nowhere in stdout or stderr', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const secret = 's3cr3t-session-7f2c9e';
    server.reply(linkedPage([{ id: 1 }], '/v1/orders?page=2'), refusedPastMaxWait);
    const headers = ['-H', `X-Session-Token: ${secret}`, '-H', `X-Other:${secret}-2`];
    const result = await petctl(['--max-wait', '1', 'api', '--paginate', '/orders', ...headers]);
    expect(result.code).toBe(5);
    expect(server.requests.map((request) => request.headers['x-session-token'])).toEqual([secret, secret]);
    expect(result.stderr).toContain(
      `stopped after 1 item (page 2); continue with: petctl api --paginate '/orders?page=2' -H 'X-Session-Token: <value>' -H 'X-Other: <value>' --base-url ${server.baseUrl}\n` +
        '(-H values are shown as <value> so that no secret is printed; put them back before running it)\n',
    );
    expect(result.stderr.match(/shown as <value>/g)).toHaveLength(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });

  it('by Ctrl-C: the JSON array is closed, stderr says how far it got, and petctl ends by SIGINT', async (t) => {
    const { server, key, petctl } = await setupE2e(t, { hang: true });
    server.reply(linkedPage([{ id: 1 }, { id: 2 }], '/v1/orders?page=2'));
    const result = await petctl(['api', '--paginate', '/orders'], { onSpawn: (child) => void server.received(2).then(() => child.kill('SIGINT')) });
    expect(result.signal).toBe('SIGINT');
    expect(JSON.parse(result.stdout)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(result.stderr).toContain(`stopped after 2 items (page 2); continue with: petctl api --paginate '/orders?page=2' --base-url ${server.baseUrl}\n`);
    expect(result.stderr).not.toContain('    at ');
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
  });
});
