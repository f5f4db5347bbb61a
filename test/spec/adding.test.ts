import { describe, expect, it } from 'vitest';
import { expectCleanError, json, setupE2e } from './sides';

/** Endpoints › Add an animal: `POST /pets`, on the client (the sandbox's side: test/sandbox/server.test.ts). */

const CREATED = { id: 13, name: 'Rex', categoryId: 3 };

describe.concurrent('Adding › "Request body | required, application/json, shape NewPet"', () => {
  it('the client sends a NewPet as application/json (status only when given, never an id) and prints the Pet created', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    const created = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual(CREATED);
    expect((await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '3', '--status', 'pending'])).code).toBe(0);
    // An import row's id is left out of what is sent.
    const imported = await petctl(['pets', 'add', '--file', '-', '--format', 'ndjson'], { input: '{"id":5,"name":"Bella","categoryId":4}\n' });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('ignoring columns: id');
    for (const request of server.requests) expect(request.headers['content-type']).toMatch(/^application\/json\b/);
    expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
      { name: 'Rex', categoryId: 3 },
      { name: 'Rex', categoryId: 3, status: 'pending' },
      { name: 'Bella', categoryId: 4 },
    ]);
  });
});

describe.concurrent('Adding › "A body with invalid values also yields 400"', () => {
  it('the client refuses a missing field or an invalid value (exit 2; an import row: exit 6, named) and sends nothing', async (t) => {
    const { server, petctl } = await setupE2e(t, json(201, CREATED));
    // Each flag's refusals are test/commands/parsing.test.ts's.
    const decimal = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1.5']);
    expect(decimal.code).toBe(2);
    expectCleanError(decimal);
    const rows = '{"name":"Rex","categoryId":3}\n{"name":"Bella"}\n{"categoryId":4}\n';
    const result = await petctl(['pets', 'add', '--file', '-', '--format', 'ndjson'], { input: rows });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('line 2 (row 2): categoryId: required');
    expect(result.stderr).toContain('line 3 (row 3): name: required');
    expect(server.requests).toHaveLength(0);
  });
});
