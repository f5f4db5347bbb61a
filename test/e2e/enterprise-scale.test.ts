import { expect, it } from 'vitest';
import { cliSession, newApiKey, tempDir } from '../helpers/cli';
import { rowsFile } from '../helpers/import-run';
import { startLimitedService } from '../helpers/limited-service';

/** Issue 30's service 50 ms away with an Enterprise window (how fast: bench/enterprise.mjs). */

const ROWS = 600;

it(`a service 50 ms away, an Enterprise key: ${ROWS} rows imported, each created once, none refused`, { timeout: 130_000 }, async (t) => {
  const service = await startLimitedService({ limit: 60_000, latencyMs: 50, listed: 0 });
  t.onTestFinished(() => service.close());
  const configDir = tempDir();
  const key = newApiKey();
  const petctl = cliSession({ args: ['--base-url', service.baseUrl], env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, secrets: [key] });

  const result = await petctl(['pets', 'add', '--file', rowsFile(configDir, 'rows.ndjson', ROWS, 'row-'), '-q'], { timeoutMs: 120_000 });

  expect(result.code, result.stderr).toBe(0);
  expect(service.counts.created.size).toBe(ROWS);
  for (let i = 1; i <= ROWS; i += 1) expect(service.counts.created.get(`row-${i}`), `row-${i}`).toBe(1);
  expect(service.counts.refused).toBe(0);
  expect(service.counts.bans).toBe(0);
});
