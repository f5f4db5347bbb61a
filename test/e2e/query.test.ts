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

  it('every other command with a JSON result: pets add and get, api, auth status, profile list and show', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 201, body: PET }, { status: 200, body: PET }, { status: 200, body: `{"orders":${PETS}}` });
    server.reply(json(200, [], { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '41' }), { status: 200, body: 'not json' });
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', BIG, '--query', 'id'])).stdout).toBe(`${BIG}\n`);
    const got = await petctl(['pets', 'get', BIG, '--query', '[id, categoryId]', '-o', 'json', '-q']);
    expect(got.stdout).toBe(`[\n  ${BIG},\n  ${BIG}\n]\n`);
    expect((await petctl(['api', '/store/orders', '--query', 'orders[0].id'])).stdout).toBe(`${BIG}\n`);
    expect((await petctl(['auth', 'status', '--query', 'rateLimit.remaining'])).stdout).toBe('41\n');
    // An api body that is not JSON cannot be queried.
    const notJson = await petctl(['api', '/health', '--query', 'x']);
    expect(notJson.code).toBe(7);
    expectCleanError(notJson);

    const offline = cliSession({ env: { PETCTL_CONFIG_DIR: tempDir() } });
    expect((await offline(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1'])).code).toBe(0);
    expect((await offline(['profile', 'list', '--query', '[].name'])).stdout).toBe('sandbox\nstaging\n');
    const shown = await offline(['profile', 'show', 'staging', '--query', '{n: name, k: storedKey}', '-o', 'ndjson']);
    expect(shown.stdout).toBe('{"n":"staging","k":null}\n');
  });

  // Each malformed expression, and -o csv's shapes, are output/query.test.ts's.
  it('a malformed expression exits 2 before anything is sent; so does --query on a command without a JSON result', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const result = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '--query', 'nope(id)']);
    expect(result.code).toBe(2);
    expectCleanError(result);
    expect(result.stderr).toMatch(/^error: --query calls an unknown function/);
    const asJson = await petctl(['pets', 'list', '-o', 'json', '--query', '[']);
    expect(asJson.code).toBe(2);
    expect(jsonError(asJson)).toMatchObject({ code: 'invalid_query', status: 0 });
    expect((await petctl(['profile', 'use', 'sandbox', '--query', 'x'])).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('-o csv prints an array of objects (the union of their keys), ids exact', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply({ status: 200, body: PETS });
    const objects = await petctl(['pets', 'list', '--query', '[].{id: id, name: name, tag: tag}', '-o', 'csv']);
    expect(objects.code).toBe(0);
    expect(objects.stdout).toBe(`id,name,tag\n${BIG},Big,\n2,Bella,\n`);
  });
});
