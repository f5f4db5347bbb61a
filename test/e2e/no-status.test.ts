import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';

/**
 * Animals created without a status appear in no `pets list --status …`: the built binary says how many,
 * once, on stderr, after an import or a single add (whose own line: pets.test.ts "pets add").
 */

const THREE = '3 animals have no status: they appear in no pets list --status available|pending|sold, only in pets list without --status';

it('an import counts the rows created without a status (empty cells too), once; a rerun that creates none, an add with --status, and -q say nothing', async (t) => {
  const { server, configDir, petctl } = await setupE2e(t, creator());
  const file = path.join(configDir, 'intake.csv');
  fs.writeFileSync(file, 'name,categoryId,status\nRex,1,\nTom,1,available\nMia,2,  \nBo,3,\n');

  const result = await petctl(['pets', 'add', '--file', file]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr.split(THREE)).toHaveLength(2);
  expect(result.stdout).toBe('');
  const bodies = server.requests.map((request) => request.body).sort();
  expect(bodies).toEqual(['{"name":"Bo","categoryId":3}', '{"name":"Mia","categoryId":2}', '{"name":"Rex","categoryId":1}', '{"name":"Tom","categoryId":1,"status":"available"}']);

  const again = await petctl(['pets', 'add', '--file', file]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stderr).not.toContain('no status');
  expect(await petctl(['pets', 'add', '--name', 'Tom', '--category-id', '1', '--status', 'Available'])).toMatchObject({ code: 0, stderr: '' });
  expect(await petctl(['--quiet', 'pets', 'add', '--name', 'Rex', '--category-id', '1'])).toMatchObject({ code: 0, stderr: '' });
});
