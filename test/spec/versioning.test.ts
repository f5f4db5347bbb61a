import { describe, expect, it } from 'vitest';
import { ENTERPRISE, call, runCli, sandboxFor, tempDir } from './sides';

describe.concurrent('Versioning › "Deprecation is marked on the operation itself"', () => {
  it('the sandbox marks every answer of GET /pets/{petId} with Deprecation and Sunset: 5 December 2030, and listPets and createPet with neither', async (t) => {
    const { baseUrl } = await sandboxFor({}, t);
    // A 200 and a 404 carry them too: test/sandbox/server.test.ts; here a 401.
    const refused = await call(baseUrl, '/pets/1', { key: null });
    expect(refused.headers.deprecation).toBe('@1735689600');
    expect(refused.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    for (const reply of [await call(baseUrl, '/pets', { key: ENTERPRISE }), await call(baseUrl, '/pets', { key: ENTERPRISE, body: { name: 'Rex', categoryId: 1 } })]) {
      expect(reply.headers.deprecation).toBeUndefined();
      expect(reply.headers.sunset).toBeUndefined();
    }
  });
});

describe.concurrent('Versioning › "GET /pets/{petId} is deprecated with a stated removal date of 5 December 2030"', () => {
  it('the client\'s help says so where the command is listed and on its own page', async () => {
    const env = { PETCTL_CONFIG_DIR: tempDir() };
    expect((await runCli(['pets', '--help'], { env })).stdout.replace(/\s+/g, ' ')).toMatch(/get (\[options\] )?<petId> .*deprecated, removed on 2030-12-05/);
    expect((await runCli(['pets', 'get', '--help'], { env })).stdout).toContain('deprecated, removed on 2030-12-05');
  });
});
