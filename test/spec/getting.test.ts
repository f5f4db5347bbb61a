import { describe, expect, it } from 'vitest';
import { PET, expectCleanError, json, jsonError, setupE2e } from './sides';

/** Endpoints › Get an animal (deprecated): `GET /pets/{petId}`, on the client (the sandbox's: versioning.test.ts). */

const DEPRECATION = 'warning: GET /pets/{petId} is deprecated and is to be removed on 2030-12-05; use `petctl pets list --status <status>` instead';

describe.concurrent('Getting › "The operation is deprecated and is to be removed on 5 December 2030"', () => {
  it('the client warns on stderr with the date (the Sunset header\'s when sent), on success and on a 404 (exit 3)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const missing = { code: 'pet_not_found', message: 'no animal has id 77', status: 404 };
    const sunset = { sunset: 'Sun, 01 Jun 2031 00:00:00 GMT' };
    server.reply(json(200, PET), json(404, missing), json(404, missing), json(200, PET, sunset));
    const shown = await petctl(['pets', 'get', '1']);
    expect(shown.stderr).toBe(`${DEPRECATION}\n`);
    expect(shown.stdout).not.toContain('deprecated');
    // A 404: the server's message and code on one line; -o json repeats the Error body.
    const result = await petctl(['pets', 'get', '77']);
    expect(result.code).toBe(3);
    expectCleanError(result);
    expect(result.stderr.split('\n')).toContain(DEPRECATION);
    expect(result.stderr).toMatch(/^error: no animal has id 77 \(pet_not_found, HTTP 404\)$/m);
    const asJson = await petctl(['pets', 'get', '77', '-o', 'json']);
    expect(asJson.code).toBe(3);
    expect(jsonError(asJson)).toEqual(missing);
    expect((await petctl(['pets', 'get', '1'])).stderr).toContain('is to be removed on 2031-06-01');
    server.verify();
  });
});
