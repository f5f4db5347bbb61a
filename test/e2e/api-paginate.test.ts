import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIG, cliSession, inBash, jsonError, ok, setupE2e, tempDir } from '../helpers/cli';
import { writeSandboxData } from '../helpers/sandbox-data';
import { linkedPage, refusedPastMaxWait } from '../helpers/linked-pages';

/** `petctl api --paginate` on the built-in sandbox, and on scripted servers: a page that is no array, a stop. */

const ALL_IDS = [...Array.from({ length: 24 }, (_, index) => String(index + 1)), BIG];

function idsIn(text: string): string[] {
  return [...text.matchAll(/"id": ?(\d+)/g)].map((match) => match[1]!);
}

describe.concurrent('petctl api --paginate', () => {
  it("follows 7 pages of the sandbox: one JSON array, int64-exact (by default and -o json), one item a line (-o ndjson); --query sees the one array; fields go in the first page's query, kept by the next links", async () => {
    const configDir = tempDir();
    const statuses = ['available', 'pending', 'sold'];
    const pets = ALL_IDS.map((id, index) => `{"id":${id},"name":"Pet ${id}","categoryId":1,"status":"${statuses[index % 3]}"}`);
    writeSandboxData(path.join(configDir, 'sandbox-data.json'), `[${pets.join(',')}]`);
    const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir } });

    const queried = await ok(petctl(['api', '--paginate', '/pets?limit=4', '--query', 'length(@)', '-v']));
    expect(queried.stdout).toBe('25\n');
    expect(queried.stderr.match(/^page \d+: \d+ items?, /gm)).toEqual([...Array.from({ length: 6 }, (_, index) => `page ${index + 1}: 4 items, `), 'page 7: 1 item, ']);
    expect(queried.stderr).toMatch(/^page 7: 1 item, no next link$/m);
    for (const flags of [[], ['-o', 'json']]) {
      const result = await petctl(['api', '--paginate', '/pets?limit=4', ...flags]);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(result.stdout)).toHaveLength(25);
      expect(idsIn(result.stdout)).toEqual(ALL_IDS);
    }
    const ndjson = await ok(petctl(['api', '--paginate', '/pets', '-F', 'limit=4', '-o', 'ndjson']));
    expect(ndjson.stdout.split('\n').filter(Boolean).map((line) => idsIn(line)[0])).toEqual(ALL_IDS);
    const pending = await petctl(['api', '--paginate', '/pets', '-F', 'limit=2', '-f', 'status=pending', '--query', '[].id', '-o', 'json']);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout.replace(/\s+/g, '')).toBe('[2,5,8,11,14,17,20,23]');
  });

  it('a page that is not a JSON array ends with exit 7 naming its URL, after printing the pages before it as a closed array; stopped by a 429 past --max-wait: the array so far stays valid; the command that continues prints no -H value, said once; put back, it finishes', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    server.reply(linkedPage(`[{"id":1},{"id":${BIG}}]`, '/v1/orders?page=2'), linkedPage({ orders: [{ id: 3 }] }));
    const result = await petctl(['api', '--paginate', '/orders']);
    expect(result.code).toBe(7);
    expect(idsIn(result.stdout)).toEqual(['1', BIG]);
    expect(() => JSON.parse(result.stdout)).not.toThrow();
    expect(result.stderr).toBe(`error: page 2 (GET ${server.baseUrl}/orders?page=2) is a JSON object, not a JSON array; --paginate needs every page to be one (invalid_response, HTTP 200)\n`);

    server.reply(linkedPage('not json at all'));
    const json = await petctl(['api', '--paginate', '/orders', '-o', 'json']);
    expect(json).toMatchObject({ code: 7, stdout: '[]\n' });
    expect(jsonError(json)).toMatchObject({ code: 'invalid_response', message: expect.stringContaining(`page 1 (GET ${server.baseUrl}/orders) is not JSON`) });

    const secret = 's3cr3t-session-7f2c9e';
    server.reply(linkedPage([{ id: 1 }, { id: 2 }], '/v1/orders?page=2'), linkedPage(`[{"id":3},{"id":${BIG}}]`, '/v1/orders?page=3&x=$(exit%209)'), refusedPastMaxWait);
    const headers = ['-H', `X-Session-Token: ${secret}`, '-H', `X-Other:${secret}-2`];
    const first = await petctl(['--max-wait', '1', 'api', '--paginate', '/orders', ...headers, '-o', 'json']);
    expect(first.code).toBe(5);
    expect(idsIn(first.stdout)).toEqual(['1', '2', '3', BIG]);
    const command = `petctl api --paginate '/orders?page=3&x=$(exit%209)' -H 'X-Session-Token: <value>' -H 'X-Other: <value>' --base-url ${server.baseUrl} -o json`;
    expect(first.stderr).toContain(
      `stopped after 4 items (page 3); continue with: ${command}\n` +
        '(-H values are shown as <value> so that no secret is printed; put them back before running it)\n',
    );
    expect(first.stderr.match(/shown as <value>/g)).toHaveLength(1);
    expect(`${first.stdout}${first.stderr}`).not.toContain(secret);
    expect(JSON.parse(first.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ code: 'rate_limited', status: 429 });

    server.reply(linkedPage([{ id: 5 }]));
    const rest = await inBash(command.replace('<value>', secret).replace('<value>', `${secret}-2`), { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key });
    expect(rest.code, rest.stderr).toBe(0);
    expect(idsIn(rest.stdout)).toEqual(['5']);
    expect(server.requests.at(-1)!.url).toBe('/v1/orders?page=3&x=$(exit%209)');
    const sent = server.requests.slice(-4).map((request) => [request.headers['x-session-token'], request.headers['x-other']]);
    expect(sent).toEqual(Array(4).fill([secret, `${secret}-2`]));
    server.verify();
  });
});
