import { describe, expect, it } from 'vitest';
import { expectCleanError, json, setupE2e } from './sides';

/** Endpoints › Add an animal: `POST /pets`, on the client and on the sandbox. */

const CREATED = { id: 13, name: 'Rex', categoryId: 3 };

describe.concurrent('Adding › "Request body | required, application/json, shape NewPet"', () => {
  it('the client sends a NewPet as application/json: name, categoryId, and status only when given', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3'])).code).toBe(0);
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3', '--status', 'pending'])).code).toBe(0);
    for (const request of server.requests) expect(request.headers['content-type']).toMatch(/^application\/json\b/);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
      { name: 'Rex', categoryId: 3 },
      { name: 'Rex', categoryId: 3, status: 'pending' },
    ]);
  });
});

describe.concurrent('Adding › "Success | 201, body is Pet (includes the assigned id)"', () => {
  it('the client prints the created animal with its id', async (t) => {
    const { petctl } = await setupE2e(t, json(201, CREATED));
    const created = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual(CREATED);
  });

});

describe.concurrent('Adding › "name and categoryId are required; when either is missing, the response is 400"', () => {
  it('the client refuses to add without --name or --category-id (exit 2), and sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    for (const args of [['--name', 'Rex'], ['--category-id', '3'], []]) {
      const result = await petctl(['pets', 'add', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expectCleanError(result);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('the client refuses an import with a row lacking name or categoryId (exit 6), naming the row, and sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    const rows = '{"name":"Rex","categoryId":3}\n{"name":"Bella"}\n{"categoryId":4}\n';
    const result = await petctl(['pets', 'add', '--file', '-', '--format', 'ndjson'], { input: rows });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('line 2 (row 2): categoryId: required');
    expect(result.stderr).toContain('line 3 (row 3): name: required');
    expect(server.requests).toHaveLength(0);
  });
});

describe.concurrent('Adding › "A body with invalid values also yields 400"', () => {
  it('the client refuses an unknown status and a categoryId that is not an int64 (exit 2), and sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    for (const args of [
      ['--status', 'adopted'],
      ['--category-id', 'abc'],
      ['--category-id', '1.5'],
      ['--category-id', '9223372036854775808'],
    ]) {
      const result = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expectCleanError(result);
    }
    expect(server.requests).toHaveLength(0);
  });

});

describe.concurrent('Adding › "The id is assigned by the service, not sent by the client"', () => {
  // One animal's body is exactly its NewPet: the request body test above.
  it('the client never sends an id: an import row\'s id is left out of what is sent', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    const imported = await petctl(['pets', 'add', '--file', '-', '--format', 'ndjson'], { input: '{"id":5,"name":"Bella","categoryId":4}\n' });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('ignoring columns: id');
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([{ name: 'Bella', categoryId: 4 }]);
  });

});
