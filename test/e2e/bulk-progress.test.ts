import { expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { Reply } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';
import { rowsFile } from '../helpers/import-run';

/**
 * What a running import tells a person in a real terminal (tmux) when Ctrl-C stops it. The bar's rate, time
 * left and layout at every width: test/output/import-progress.test.ts.
 */

const SUMMARY = /created (\d+), skipped 0, rejected 0, invalid 0, unknown 0 in ([\d.]+)s \((\d+)\/min\)/;

it('Ctrl-C in a terminal: the request in flight finishes, the summary, then how many rows a rerun sends; the rerun sends exactly those', async (t) => {
  const create = creator();
  const slow: Reply = (request, res) => setTimeout(() => create(request, res), 300);
  const { server, key, configDir, petctl } = await setupE2e(t, slow);
  const file = rowsFile(configDir, 'intake.ndjson', 100, 'P');
  const tty = openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'add', '--file', file, '--concurrency', '1'], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { width: 120 });
  await tty.waitFor(/import \[[#.]+\] [3-9]\/100 /, 20_000);
  tty.press('C-c');
  expect(await tty.exitCode(20_000)).toBe(130);

  const text = tty.text();
  const created = Number(SUMMARY.exec(text)?.[1]);
  expect(server.requests).toHaveLength(created);
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  expect(lines[lines.findIndex((line) => SUMMARY.test(line)) + 1]).toBe(`rerun the same command to send the ${100 - created} rows not sent yet`);
  expect(text).toContain('petctl: stopping: no new requests; waiting for the ones in flight');

  const rerun = await petctl(['pets', 'add', '--file', file, '--concurrency', '4']);
  expect(rerun.code, rerun.stderr).toBe(0);
  expect(server.requests).toHaveLength(100);
  expect(rerun.stderr).toMatch(new RegExp(`^created ${100 - created}, skipped ${created}, `, 'm'));
});
