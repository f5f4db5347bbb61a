import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';

/**
 * Animals created without a status appear in no `pets list --status …`: the
 * built binary says how many, once, on stderr, after a single add or an import.
 */

const THREE = '3 animals have no status: they appear in no pets list --status available|pending|sold, only in pets list without --status';
const ONE = '1 animal has no status: it appears in no pets list --status available|pending|sold, only in pets list without --status';

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe.concurrent('animals created without a status', () => {
  it('an import counts the rows created without a status (empty cells stay no status), once; a rerun that creates none says nothing', async (t) => {
    const { server, configDir, petctl } = await setupE2e(t, creator());
    const file = path.join(configDir, 'intake.csv');
    fs.writeFileSync(file, 'name,categoryId,status\nRex,1,\nTom,1,available\nMia,2,  \nBo,3,\n');

    const result = await petctl(['pets', 'add', '--file', file]);

    expect(result.code, result.stderr).toBe(0);
    expect(occurrences(result.stderr, THREE)).toBe(1);
    expect(result.stdout).toBe('');
    const bodies = server.requests.map((request) => request.body).sort();
    expect(bodies).toEqual(['{"name":"Bo","categoryId":3}', '{"name":"Mia","categoryId":2}', '{"name":"Rex","categoryId":1}', '{"name":"Tom","categoryId":1,"status":"available"}']);

    const again = await petctl(['pets', 'add', '--file', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('no status');
  });

  it('a single add without --status says so on stderr after the animal on stdout; with --status it says nothing', async (t) => {
    const { server, petctl } = await setupE2e(t, creator());

    const bare = await petctl(['pets', 'add', '--name', 'Rex', '--category-id', '1', '-o', 'json']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toBe(`${ONE}\n`);
    expect(JSON.parse(bare.stdout)).toMatchObject({ name: 'Rex', categoryId: 1 });
    expect(server.requests[0]?.body).toBe('{"name":"Rex","categoryId":1}');

    const given = await petctl(['pets', 'add', '--name', 'Tom', '--category-id', '1', '--status', 'Available']);
    expect(given.code, given.stderr).toBe(0);
    expect(given.stderr).toBe('');

    // --quiet leaves the count out.
    const quiet = await petctl(['--quiet', 'pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
  });
});
