import { describe, expect, it } from 'vitest';
import { cliSession, expectCleanError, jsonError, setupE2e, tempDir } from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/** `--query <JMESPath>` on every command with a JSON result, end to end. */

const BIG = '9007199254740993';
const PETS = `[{"id":${BIG},"name":"Big","categoryId":2,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"status":"available"}]`;
const PET = `{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}`;

describe.concurrent('--query', () => {
  // How a result prints (plain lines, json, ndjson, an object as JSON) and big ids compared and sorted are output/query.test.ts's.
  it('pets list: ids stay exact from the wire to a plain line each', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, body: PETS });
    expect((await petctl(['pets', 'list', '--query', '[].id'])).stdout).toBe(`${BIG}\n2\n`);
  });

  it('pets add and pets get', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 201, body: PET }, { status: 200, body: PET });
    const added = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', BIG, '--query', 'id']);
    expect(added.code).toBe(0);
    expect(added.stdout).toBe(`${BIG}\n`);
    const got = await petctl(['pets', 'get', BIG, '--query', '[id, categoryId]', '-o', 'json', '-q']);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe(`[\n  ${BIG},\n  ${BIG}\n]\n`);
  });

  it('api', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, body: `{"orders":${PETS}}` });
    const result = await petctl(['api', '/store/orders', '--query', 'orders[0].id']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${BIG}\n`);
  });

  it('api with a body that is not JSON cannot be queried (exit 7)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, body: 'not json' });
    const result = await petctl(['api', '/health', '--query', 'x']);
    expect(result.code).toBe(7);
    expectCleanError(result);
  });

  it('auth status', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [], { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '41' }));
    const result = await petctl(['auth', 'status', '--query', 'rateLimit.remaining']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('41\n');
  });

  it('profile list and profile show', async (t) => {
    const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: tempDir() } });
    expect((await petctl(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1'])).code).toBe(0);
    expect((await petctl(['profile', 'list', '--query', '[].name'])).stdout).toBe('sandbox\nstaging\n');
    expect((await petctl(['profile', 'use', 'sandbox'])).code).toBe(0);
    expect((await petctl(['profile', 'list', '--query', '[?active].name | [0]'])).stdout).toBe('sandbox\n');
    expect((await petctl(['profile', 'show', 'staging', '--query', 'effectiveBaseUrl'])).stdout).toBe('https://staging.example.org/v1\n');
    expect((await petctl(['profile', 'show', 'staging', '--query', '{n: name, k: storedKey}', '-o', 'ndjson'])).stdout).toBe('{"n":"staging","k":null}\n');
  });

  it('a malformed expression exits 2 before anything is sent', async (t) => {
    const { server, petctl } = await setupE2e(t);
    for (const args of [
      ['pets', 'list', '--query', '[?id =='],
      ['pets', 'add', '--name', 'Rex', '--category-id', '1', '--query', 'nope(id)'],
      ['api', '/pets', '-X', 'POST', '--query', '['],
      ['auth', 'status', '--query', ']'],
    ]) {
      const result = await petctl(args);
      expect(result.code, args.join(' ')).toBe(2);
      expectCleanError(result);
      expect(result.stderr).toMatch(/^error: --query (is not a valid JMESPath expression|calls an unknown function)/);
    }
    const asJson = await petctl(['pets', 'list', '-o', 'json', '--query', '[']);
    expect(asJson.code).toBe(2);
    expect(jsonError(asJson)).toMatchObject({ code: 'invalid_query', status: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it('commands without a JSON result refuse --query (exit 2)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    expect((await petctl(['profile', 'use', 'sandbox', '--query', 'x'])).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('-o csv prints an array of objects (the union of their keys) or of scalars (one column), ids exact', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(...Array.from({ length: 3 }, () => ({ status: 200, body: PETS })));
    const objects = await petctl(['pets', 'list', '--query', '[].{id: id, name: name, tag: tag}', '-o', 'csv']);
    expect(objects.code).toBe(0);
    expect(objects.stdout).toBe(`id,name,tag\n${BIG},Big,\n2,Bella,\n`);
    expect((await petctl(['pets', 'list', '--query', '[].id', '-o', 'csv'])).stdout).toBe(`id\n${BIG}\n2\n`);
    expect((await petctl(['api', '/pets', '--query', "[?status == 'sold']", '-o', 'csv'])).stdout).toBe(`id,name,categoryId,status\n${BIG},Big,2,sold\n`);
  });

  it('-o csv refuses a result that is no array of objects or scalars: exit 2, naming the outputs that fit', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(...Array.from({ length: 2 }, () => ({ status: 200, body: PETS })));
    const count = await petctl(['pets', 'list', '--query', 'length(@)', '-o', 'csv']);
    expect(count.code).toBe(2);
    expectCleanError(count);
    expect(count.stderr).toBe(
      "error: --query gives a number; -o csv prints only an array of objects or an array of scalars (usage_error)\n" +
        "hint: -o json, -o ndjson and the default output print it; for csv, put the expression in brackets for one record: --query '[length(@)]'\n",
    );
    const rows = await petctl(['pets', 'list', '--query', '[].[id, name]', '-o', 'csv']);
    expect(rows.code).toBe(2);
    expect(rows.stderr).toMatch(/^error: --query gives an array of arrays; .*\nhint: .*make each element an object/);
  });
});
