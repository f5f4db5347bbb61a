import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, NODE, cleanEnv, jsonError, setupE2e } from '../helpers/cli';
import { type RecordedRequest, startScriptedServer } from '../helpers/scripted-server';
import { linkedPage, petsPage } from '../helpers/linked-pages';

/** `petctl pets list --all` against scripted servers: three linked pages, and hostile next links. */

const BIG = '9007199254740993';

/** Three pages of two, linked as the sandbox does: </v1/pets?limit=2&after=<last id>>. */
function threePages() {
  return [
    linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'),
    linkedPage(petsPage([3, BIG]), `/v1/pets?limit=2&after=${BIG}`),
    linkedPage(petsPage(['9007199254740995'])),
  ];
}

describe.concurrent('pets list --all follows Link rel="next"', () => {
  it('fetches three linked pages with --limit as the page size and prints every animal (TSV); -v traces each page', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(...threePages());
    const result = await petctl(['pets', 'list', '--all', '--limit', '2', '--status', 'available']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      ['1', '2', '3', BIG, '9007199254740995'].map((id) => `${id}\tPet ${id}\t1\tavailable\n`).join(''),
    );
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/pets?limit=2&status=available', '/v1/pets?limit=2&after=2', `/v1/pets?limit=2&after=${BIG}`]);

    // -v traces each page.
    server.reply(...threePages());
    const traced = await petctl(['pets', 'list', '--all', '--limit', '2', '-v']);
    expect(traced.code).toBe(0);
    expect(traced.stderr.match(/^> GET /gm)).toHaveLength(3);
    expect(traced.stderr).toMatch(/^page 1: 2 animals, next http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=2&after=2$/m);
    expect(traced.stderr).toMatch(/^page 3: 1 animals, no next link$/m);
    server.verify();
  });

  it('streams each page as it comes: page 1 is on stdout before page 2 is answered', async (t) => {
    const server = await startScriptedServer();
    t.onTestFinished(() => server.close());
    let stdout = '';
    let release: () => void = () => {};
    const seenFirstPage = new Promise<void>((resolve) => (release = resolve));
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'), (_request: RecordedRequest, res) => {
      // Answer page 2 only once page 1 has reached petctl's stdout.
      void seenFirstPage.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(petsPage([3]));
      });
    });
    const child = spawn(NODE, [BIN, '--base-url', server.baseUrl, 'pets', 'list', '--all', '--limit', '2', '-o', 'ndjson'], {
      env: cleanEnv({ PETCTL_CONFIG_DIR: '/nonexistent-petctl-test', PETCTL_API_KEY: 'k-stream-test' }),
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.split('\n').length > 2) release();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('without a next link prints the one page and no more; a full page gets a notice', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(linkedPage(petsPage([1])), linkedPage(petsPage([1, 2])));
    const partial = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(partial.code).toBe(0);
    expect(partial.stdout).toBe('1\tPet 1\t1\tavailable\n');
    expect(partial.stderr).toBe('');
    const full = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(full.code).toBe(0);
    expect(full.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(full.stderr).toBe('petctl: page 1 is full but came without a Link rel="next"; the server may hold more animals than were listed\n');
    expect(server.requests).toHaveLength(2);
  });

});

describe.concurrent('pets list --all refuses a hostile next link with exit 7, without requesting it', () => {
  it('a next link on another origin (the key would go with it)', async (t) => {
    const { server, petctl } = await setupE2e(t);
    const other = await startScriptedServer(linkedPage(petsPage([9])));
    t.onTestFinished(() => other.close());
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?after=2'), linkedPage(petsPage([3, 4]), `http://127.0.0.1:${other.port}/v1/pets?after=4`));
    const result = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(result.code).toBe(7);
    expect(other.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(2);
    // The pages before it were printed as they came.
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(4);
    expect(result.stderr).toMatch(new RegExp(`^error: page 2's next link points to another origin \\(http://127\\.0\\.0\\.1:${other.port}\\); not followed`));
  });

  it('a next link back to a page already fetched (a loop), or to itself', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(linkedPage(petsPage([1, 2]), '/v1/pets?limit=2&after=2'), linkedPage(petsPage([3, 4]), '/v1/pets?limit=2'), linkedPage(petsPage([1, 2]), '/v1/pets?limit=2'));
    const loop = await petctl(['pets', 'list', '--all', '--limit', '2']);
    expect(loop.code).toBe(7);
    expect(loop.stderr).toContain("error: page 2's next link leads back to a page already fetched (/v1/pets?limit=2); not followed");
    const itself = await petctl(['pets', 'list', '--all', '--limit', '2', '-o', 'json']);
    expect(itself.code).toBe(7);
    expect(JSON.parse(itself.stdout)).toHaveLength(2);
    // A bad link is no place to continue from: no continue command, one JSON error line.
    expect(jsonError(itself)).toMatchObject({ code: 'invalid_response', status: 200 });
    expect(server.requests).toHaveLength(3);
  });
});
