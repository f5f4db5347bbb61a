import { describe, expect, it } from 'vitest';
import { BIG, inBash, jsonError, ok, setupE2e } from '../helpers/cli';
import { linkedPage, petsPage, refusedPastMaxWait } from '../helpers/linked-pages';
import { json } from '../helpers/scripted-server';

/** `petctl pets list --all` and `--starting-token` against scripted servers (the walk: pages.test.ts). */

const tsv = (ids: string[]) => ids.map((id) => `${id}\tPet ${id}\t1\tavailable\n`).join('');

function jsonIds(stdout: string): string[] {
  expect(() => JSON.parse(stdout)).not.toThrow();
  return [...stdout.matchAll(/"id": (\d+)/g)].map((match) => match[1]!);
}

describe.concurrent('pets list --all stopped', () => {
  it('fetches linked pages with --limit as the page size and prints every animal (TSV); -v traces each page; a full last page gets a notice; a link back is refused; stopped by a 429: one valid JSON array on stdout, --query over it, and the command printed continues in a shell: every animal once', async (t) => {
    const { server, key, configDir, petctl } = await setupE2e(t);
    server.reply(
      linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&status=available&after=2'),
      linkedPage(petsPage([3, BIG]), `/v1/pets?limit=2&status=available&after=${BIG}`),
      linkedPage(petsPage(['9007199254740995'])),
    );
    const traced = await ok(petctl(['pets', 'list', '--all', '--limit', '2', '--status', 'available', '-v']));
    expect(traced.stdout).toBe(tsv(['1', '2', '3', BIG, '9007199254740995']));
    expect(server.requests.map((request) => request.url)).toEqual([
      '/v1/pets?limit=2&status=available',
      '/v1/pets?limit=2&status=available&after=2',
      `/v1/pets?limit=2&status=available&after=${BIG}`,
    ]);
    expect(traced.stderr.match(/^> GET /gm)).toHaveLength(3);
    expect(traced.stderr).toMatch(/^page 1: 2 animals, next http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=2&status=available&after=2$/m);
    expect(traced.stderr).toMatch(/^page 3: 1 animal, no next link$/m);

    server.reply(linkedPage(petsPage([1, 2])));
    const full = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(full).toMatchObject({ code: 0, stdout: tsv(['1', '2']) });
    expect(full.stderr).toBe('petctl: page 1 is full but came without a Link rel="next"; the server may hold more animals than were listed\n');

    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'), linkedPage(petsPage([3, 4]), '/v1/pets?limit=2'), linkedPage(petsPage([1, 2]), '/v1/pets?limit=2'));
    const loop = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(loop.code).toBe(7);
    expect(loop.stderr).toContain("error: page 2's next link leads back to a page already fetched (/v1/pets?limit=2); not followed");
    const itself = await petctl(['pets', 'list', '--all', '--limit', '2', '-o', 'json']);
    expect(itself.code).toBe(7);
    expect(JSON.parse(itself.stdout)).toHaveLength(2);
    expect(jsonError(itself)).toMatchObject({ code: 'invalid_response', status: 200 });
    expect(server.requests).toHaveLength(7);
    server.verify();

    // What a shell would run or expand, were it not quoted.
    const next = "/v1/pets?limit=2&status=available&after=4&x=$(exit%209)`false`;*|";
    const pages = () => [linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&status=available&after=2'), linkedPage(petsPage([3, BIG]), next), refusedPastMaxWait];
    server.reply(...pages());
    const first = await petctl(['--max-wait', '1', 'pets', 'list', '--all', '--limit', '2', '--status', 'available', '-o', 'json']);
    expect(first.code).toBe(5);
    expect(jsonIds(first.stdout)).toEqual(['1', '2', '3', BIG]);
    const stop = /^stopped after 4 animals \(page 3\); continue with: (.+)$/m.exec(first.stderr);
    expect(stop![1]).toBe(`petctl pets list --all --limit 2 --status available --base-url ${server.baseUrl} -o json --starting-token '${next}'`);
    expect(first.stderr).not.toContain('nothing sent');

    server.reply(linkedPage(petsPage(['9007199254740995'])));
    const rest = await ok(inBash(stop![1]!, { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }));
    expect(server.requests.at(-1)!.url).toBe(next);
    expect([...jsonIds(first.stdout), ...jsonIds(rest.stdout)]).toEqual(['1', '2', '3', BIG, '9007199254740995']);

    server.reply(...pages());
    const queried = await petctl(['--max-wait', '1', 'pets', 'list', '--all', '--limit', '2', '-o', 'json', '--query', 'length(@)']);
    expect(queried.code).toBe(5);
    expect(queried.stdout).toBe('4\n');
    server.verify();
  });

  it('by Ctrl-C: the JSON array closed, how far it got and how to continue, and the end by SIGINT', async (t) => {
    const { server, petctl } = await setupE2e(t, { hang: true });
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'));
    const result = await petctl(['pets', 'list', '--all', '--limit', '2', '-o', 'json'], { onSpawn: (child) => void server.received(2).then(() => child.kill('SIGINT')) });
    expect(result.signal).toBe('SIGINT');
    expect(JSON.parse(result.stdout)).toHaveLength(2);
    expect(result.stderr).toContain(
      `stopped after 2 animals (page 2); continue with: petctl pets list --all --limit 2 --base-url ${server.baseUrl} -o json --starting-token '/v1/pets?limit=2&after=2'\n`,
    );
    expect(result.stderr).not.toContain('    at ');
  });
});

it.concurrent("pets list --starting-token: starts at the link with its filters, as a path or on the base URL's origin, and implies --all; refuses one it cannot follow (exit 2)", async (t) => {
  const { server, petctl } = await setupE2e(t);
  server.reply(linkedPage(petsPage([3]), '/v1/pets?limit=2&status=available&after=3'), linkedPage(petsPage([]), undefined), linkedPage(petsPage([5])));
  const fromPath = await petctl(['pets', 'list', '--status', 'available', '--starting-token', '/v1/pets?limit=2&status=available&after=2']);
  expect(fromPath).toMatchObject({ code: 0, stdout: tsv(['3']) });
  expect((await petctl(['pets', 'list', '--starting-token', `${server.baseUrl}/pets?limit=2&after=4`])).code).toBe(0);
  expect(server.requests.map((request) => request.url)).toEqual([
    '/v1/pets?limit=2&status=available&after=2',
    '/v1/pets?limit=2&status=available&after=3',
    '/v1/pets?limit=2&after=4',
  ]);
  server.verify();

  const offOrigin = await petctl(['pets', 'list', '--all', '--starting-token', `http://localhost:${server.port}/v1/pets?after=2`]);
  expect(offOrigin).toMatchObject({
    code: 2,
    stderr: `error: --starting-token leads to http://localhost:${server.port}, not to the base URL's origin (http://127.0.0.1:${server.port}); the API key goes only there (usage_error)\n`,
  });
  expect((await petctl(['pets', 'list', '--starting-token', '//evil.example/v1/pets'])).code).toBe(2);
  const withPassword = `http://u:hunter2@127.0.0.1:${server.port}/v1/pets`;
  expect(await petctl(['pets', 'list', '--starting-token', withPassword])).toMatchObject({
    code: 2,
    stderr: 'error: --starting-token must not contain a user name or password (usage_error)\n',
  });
  const notALink = await petctl(['pets', 'list', '--starting-token', 'after=2']);
  expect(notALink).toMatchObject({ code: 2, stderr: 'error: --starting-token must be the link a stopped `pets list --all` printed, not "after=2" (usage_error)\n' });
  const otherFilter = await petctl(['pets', 'list', '--status', 'sold', '--starting-token', '/v1/pets?limit=2&status=available&after=2']);
  expect(otherFilter).toMatchObject({
    code: 2,
    stderr: 'error: --starting-token continues a listing with status=available, not --status sold (usage_error)\nhint: leave out --status, or give --status available\n',
  });
  expect(server.requests).toHaveLength(3);

  // A token the service refuses (400) or does not know (404): its answer, and no command to continue with the same.
  const refused = { code: 'invalid_parameter', message: 'after must be an int64 id, got "abc"', status: 400 };
  server.reply(json(400, refused), json(404, { code: 'not_found', message: 'no such path: /v1/petz', status: 404 }));
  const garbled = await petctl(['pets', 'list', '--starting-token', '/v1/pets?after=abc']);
  expect(garbled).toMatchObject({ code: 6, stdout: '', stderr: `error: ${refused.message} (invalid_parameter, HTTP 400)\n` });
  const nowhere = await petctl(['pets', 'list', '--starting-token', '/v1/petz?after=2', '-o', 'json']);
  expect(nowhere).toMatchObject({ code: 3, stdout: '[]\n' });
  expect(jsonError(nowhere)).toMatchObject({ code: 'not_found', status: 404 });
  server.verify();
});
