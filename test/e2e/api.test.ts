import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BIG,
  cliSession,
  expectCleanError,
  expectPetctlHeaders,
  jsonError,
  runCli,
  setupE2e,
  tempDir,
  writeInput,
} from '../helpers/cli';
import { json } from '../helpers/scripted-server';

/** `petctl api`, and `--query` on every command with a JSON result (how it prints: test/output/query.test.ts). */

const PETS = `[{"id":${BIG},"name":"Big","categoryId":2,"status":"sold"},{"id":2,"name":"Bella","categoryId":1,"status":"available"}]`;
const PET = `{"id":${BIG},"name":"Rex","categoryId":${BIG},"status":"available"}`;
const ORDERS = `[{"id":${BIG},"petId":7,"quantity":1},{"id":2,"petId":8,"quantity":3}]`;

describe.concurrent('petctl api, and --query', () => {
  it('GETs a path relative to the base URL with the key, User-Agent and Accept, printing the body as sent, ending with one newline; --input sends a file or stdin; -i on an error status prints its head on stdout, then the error on stderr with its exit code; after a retry, the head of the answer that counted; --query on pets list, add and get, api, auth status, profile list and show; a bad expression, or one on a body that is not JSON, ends it', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    const body = `{"name":"Tom","categoryId":${BIG}}`;
    const file = writeInput(configDir, 'pet.json', body);
    server.reply(
      { status: 200, body: ORDERS },
      { status: 200, body: `${ORDERS}\n` },
      json(201, { id: 1 }),
      json(201, { id: 2 }),
    );

    const result = await petctl(['api', '/store/orders']);
    expect(result).toMatchObject({ code: 0, stdout: `${ORDERS}\n`, stderr: '' });
    expect((await petctl(['api', '/store/orders'])).stdout).toBe(`${ORDERS}\n`);
    expect((await petctl(['api', '/pets', '--input', file])).code).toBe(0);
    expect((await petctl(['api', '/pets', '--input', '-', '-H', 'Content-Type: application/merge-patch+json'], { input: body })).code).toBe(0);

    const sent = server.requests.map(({ method, url, body, headers }) => [method, url, body, headers['content-type']]);
    expect(sent).toEqual([
      ['GET', '/v1/store/orders', '', undefined],
      ['GET', '/v1/store/orders', '', undefined],
      ['POST', '/v1/pets', body, 'application/json'],
      ['POST', '/v1/pets', body, 'application/merge-patch+json'],
    ]);
    expectPetctlHeaders(server.requests[0]!, key);

    server.reply(json(404, { code: 'not_found', message: 'no such order', status: 404 }, { 'X-Request-Id': 'r-1' }));
    const notFound = await petctl(['api', '-i', '/store/orders/9']);
    expect(notFound.code).toBe(3);
    expect(notFound.stdout).toMatch(/^HTTP\/1\.1 404 Not Found\n[\s\S]*\nX-Request-Id: r-1\n[\s\S]*\n\n$/);
    expect(notFound.stderr).toBe('error: no such order (not_found, HTTP 404)\n');

    server.reply(json(503, { code: 'busy', message: 'busy', status: 503 }), { status: 200, body: '[]', headers: { 'X-Page': 'final' } });
    const retried = await petctl(['api', '-i', '/pets']);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/^HTTP\/1\.1 200 OK\n[\s\S]*X-Page: final\n[\s\S]*\n\n\[\]\n$/);
    expect(retried.stdout).not.toContain('503');

    const limits = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '41' };
    server.reply(
      { status: 200, body: PETS },
      { status: 201, body: PET },
      { status: 200, body: PET },
      { status: 200, body: `{"orders":${PETS}}` },
    );
    server.reply(json(200, [], limits), { status: 200, body: 'not json' });
    expect((await petctl(['pets', 'list', '--query', '[].id'])).stdout).toBe(`${BIG}\n2\n`);
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', BIG, '--query', 'id'])).stdout).toBe(`${BIG}\n`);
    const got = await petctl(['pets', 'get', BIG, '--query', '[id, categoryId]', '-o', 'json', '-q']);
    expect(got.stdout).toBe(`[\n  ${BIG},\n  ${BIG}\n]\n`);
    expect((await petctl(['api', '/store/orders', '--query', 'orders[0].id'])).stdout).toBe(`${BIG}\n`);
    expect((await petctl(['auth', 'status', '--query', 'rateLimit.remaining'])).stdout).toBe('41\n');
    const notJson = await petctl(['api', '/health', '--query', 'x']);
    expectCleanError(notJson, 7);

    const before = server.requests.length;
    const malformed = await petctl(['pets', 'list', '-o', 'json', '--query', '[']);
    expect(malformed.code).toBe(2);
    expect(jsonError(malformed)).toMatchObject({ code: 'invalid_query', status: 0 });
    expect((await petctl(['profile', 'use', 'sandbox', '--query', 'x'])).code).toBe(2);
    expect(server.requests).toHaveLength(before);

    const offline = cliSession({ env: { PETCTL_CONFIG_DIR: tempDir() } });
    expect((await offline(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1'])).code).toBe(0);
    expect((await offline(['profile', 'list', '--query', '[].name'])).stdout).toBe('sandbox\nstaging\n');
    const shown = await offline(['profile', 'show', 'staging', '--query', '{n: name, k: storedKey}', '-o', 'ndjson']);
    expect(shown.stdout).toBe('{"n":"staging","k":null}\n');
  });

  it('/v1/pets against the built-in sandbox (base URL …/v1) is sent once as /v1/pets, and -v shows that URL', async () => {
    const configDir = tempDir();
    const log = path.join(configDir, 'requests.log');
    const result = await runCli(['api', '/v1/pets?limit=3', '-v', '--query', '[].name'], { env: { PETCTL_CONFIG_DIR: configDir, PETCTL_SANDBOX_LOG: log } });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Rex\nBella\nMax\n');
    expect(result.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=3$/m);
    expect(result.stderr).not.toContain('/v1/v1');
    expect(fs.readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual([expect.stringMatching(/^GET \/v1\/pets\?limit=3 200 /)]);
  });
});
