import { describe, expect, it } from 'vitest';
import { PET, expectCleanError, json, setupE2e } from './sides';

describe.concurrent('Service › "Requests and responses carry JSON (application/json)"', () => {
  it('the client asks for JSON on every request, sends JSON, and refuses an answer that is not JSON (exit 7)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(json(200, [PET]), json(201, PET), { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>Welcome</html>' });
    // Neither warns of a deprecation: only pets get does (getting.test.ts).
    for (const args of [['pets', 'list'], ['pets', 'add', '--name', 'Rex', '--category-id', '1']]) {
      const result = await petctl(args);
      expect([result.code, result.stderr]).toEqual([0, '']);
    }
    const refused = await petctl(['pets', 'list']);
    expect(refused.code).toBe(7);
    expectCleanError(refused);
    expect(refused.stderr).toMatch(/\(invalid_response, HTTP 200\)$/m);
    for (const request of server.requests) expect(request.headers.accept).toBe('application/json');
    expect(server.requests[1]!.headers['content-type']).toMatch(/^application\/json\b/);
    server.verify();
  });
});

describe.concurrent('Service › "Both addresses end in the version segment /v1, and all paths below are relative to them"', () => {
  it('the client puts each path after the base address, whatever comes before /v1', async (t) => {
    const { server, petctl } = await setupE2e(t, json(200, [PET]));
    const origin = `http://127.0.0.1:${server.port}`;
    // The last --base-url counts.
    for (const base of [`${origin}/v1`, `${origin}/v1/`, `${origin}/pet-adoption/v1`]) {
      const result = await petctl(['--base-url', base, 'pets', 'list']);
      expect(result.code, result.stderr).toBe(0);
    }
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/pets', '/v1/pets', '/pet-adoption/v1/pets']);
  });
});
