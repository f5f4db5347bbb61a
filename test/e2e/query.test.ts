import { expect, it } from 'vitest';
import { cliSession, expectCleanError, jsonError, setupE2e, tempDir } from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/**
 * `--query <JMESPath>` on every command with a JSON result, ids exact from the wire. How a result prints
 * (lines, json, ndjson, csv), and each malformed expression: test/output/query.test.ts.
 */

const BIG = '9007199254740993';
const PETS = `[{"id":${BIG},"name":"Big","categoryId":2,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"status":"available"}]`;
const PET = `{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}`;

it('pets list, add and get, api, auth status, profile list and show; a bad expression, or one on a body that is not JSON, ends it', async (t) => {
  const { server, petctl } = await setupE2e(t);
  const limits = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '41' };
  server.reply({ status: 200, body: PETS }, { status: 201, body: PET }, { status: 200, body: PET }, { status: 200, body: `{"orders":${PETS}}` });
  server.reply(json(200, [], limits), { status: 200, body: 'not json' });
  expect((await petctl(['pets', 'list', '--query', '[].id'])).stdout).toBe(`${BIG}\n2\n`);
  expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', BIG, '--query', 'id'])).stdout).toBe(`${BIG}\n`);
  const got = await petctl(['pets', 'get', BIG, '--query', '[id, categoryId]', '-o', 'json', '-q']);
  expect(got.stdout).toBe(`[\n  ${BIG},\n  ${BIG}\n]\n`);
  expect((await petctl(['api', '/store/orders', '--query', 'orders[0].id'])).stdout).toBe(`${BIG}\n`);
  expect((await petctl(['auth', 'status', '--query', 'rateLimit.remaining'])).stdout).toBe('41\n');
  const notJson = await petctl(['api', '/health', '--query', 'x']);
  expect(notJson.code).toBe(7);
  expectCleanError(notJson);

  // A malformed expression exits 2 before anything is sent; so does --query on a command without a JSON result.
  const sent = server.requests.length;
  const malformed = await petctl(['pets', 'list', '-o', 'json', '--query', '[']);
  expect(malformed.code).toBe(2);
  expect(jsonError(malformed)).toMatchObject({ code: 'invalid_query', status: 0 });
  expect((await petctl(['profile', 'use', 'sandbox', '--query', 'x'])).code).toBe(2);
  expect(server.requests).toHaveLength(sent);

  const offline = cliSession({ env: { PETCTL_CONFIG_DIR: tempDir() } });
  expect((await offline(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1'])).code).toBe(0);
  expect((await offline(['profile', 'list', '--query', '[].name'])).stdout).toBe('sandbox\nstaging\n');
  const shown = await offline(['profile', 'show', 'staging', '--query', '{n: name, k: storedKey}', '-o', 'ndjson']);
  expect(shown.stdout).toBe('{"n":"staging","k":null}\n');
});
