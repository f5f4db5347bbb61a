import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { cliSession, newApiKey, tempDir } from '../helpers/cli';
import { type LimitedService, startLimitedService } from '../helpers/limited-service';

/**
 * Issue 30's service 50 ms away with an Enterprise window: an import and both listings, every row once,
 * every page once in order, no 429. How fast is bench/enterprise.mjs's to say.
 */

const ROWS = 600;
const LISTED = 2000;
const PAGE = 100;

async function farSetup(t: TestContext, listed: number) {
  const service = await startLimitedService({ limit: 60_000, latencyMs: 50, listed });
  const configDir = tempDir();
  const key = newApiKey();
  t.onTestFinished(() => service.close());
  const petctl = cliSession({ args: ['--base-url', service.baseUrl], env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, secrets: [key] });
  return { service, configDir, petctl };
}

/** The `after` of each page a listing of `listed` animals reads, in order: '' (the first page), 100, 200, … */
function pagesInOrder(listed: number): string[] {
  return Array.from({ length: Math.ceil(listed / PAGE) }, (_, page) => (page === 0 ? '' : String(page * PAGE)));
}

function expectNoRefusal(service: LimitedService): void {
  expect(service.counts.refused).toBe(0);
  expect(service.counts.bans).toBe(0);
}

describe.concurrent('a service 50 ms away, an Enterprise key', () => {
  it(`imports ${ROWS} rows: each created once on the service`, async (t) => {
    const { service, configDir, petctl } = await farSetup(t, 0);
    const file = path.join(configDir, 'rows.ndjson');
    fs.writeFileSync(file, Array.from({ length: ROWS }, (_, i) => `{"name":"row-${i + 1}","categoryId":1}\n`).join(''));

    const result = await petctl(['pets', 'add', '--file', file, '-q'], { timeoutMs: 120_000 });

    expect(result.code, result.stderr).toBe(0);
    const created = service.counts.created;
    expect(created.size).toBe(ROWS);
    for (let i = 1; i <= ROWS; i += 1) expect(created.get(`row-${i}`), `row-${i}`).toBe(1);
    expectNoRefusal(service);
  }, 130_000);

  it.for([
    { what: 'pets list --all', args: ['pets', 'list', '--all', '--limit', String(PAGE), '-o', 'json'] },
    { what: 'api --paginate', args: ['api', `/pets?limit=${PAGE}`, '--paginate', '-o', 'json'] },
  ])(`$what over ${LISTED} animals, ${PAGE} a page: each page read once, in order, each animal printed once`, { timeout: 130_000 }, async ({ args }, t) => {
    const { service, petctl } = await farSetup(t, LISTED);

    const result = await petctl(args, { timeoutMs: 120_000 });

    expect(result.code, result.stderr).toBe(0);
    expect(service.counts.pages).toEqual(pagesInOrder(LISTED));
    const ids = (JSON.parse(result.stdout) as Array<{ id: number }>).map((pet) => pet.id);
    expect(ids).toEqual(Array.from({ length: LISTED }, (_, i) => i + 1));
    expectNoRefusal(service);
  });
});
