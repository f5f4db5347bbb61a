import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { creator } from '../helpers/pet-creator';
import type { RecordedRequest } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';
import { rowsFile } from '../helpers/import-run';

/**
 * What a running import tells a person, in a real terminal (tmux): the rate is rows created over the time
 * since the first request, the time left never less than the wait under way, and Ctrl-C's summary.
 */

/** A server that creates every animal `delayMs` after the request: at most 60000/delayMs a minute with one request in flight. */
function slowCreator(delayMs: number) {
  const create = creator();
  return (request: RecordedRequest, res: import('node:http').ServerResponse) => void setTimeout(() => create(request, res), delayMs);
}

/** petctl in tmux against the scripted server, with the key and config of `setupE2e`. */
function importInTerminal(t: Parameters<typeof openTerminal>[0], setup: Awaited<ReturnType<typeof setupE2e>>, file: string, width = 120) {
  const { server, key, configDir } = setup;
  const env = { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key };
  return openTerminal(t, ['--base-url', server.baseUrl, 'pets', 'add', '--file', file, '--concurrency', '1'], env, { width });
}

/** The progress line as the screen shows it. */
const barRow = (screen: string) => screen.split('\n').find((line) => line.startsWith('import '))!.trimEnd();

const SUMMARY = /created (\d+), skipped 0, rejected 0, invalid 0, unknown 0 in ([\d.]+)s \((\d+)\/min\)/;

describe.concurrent('import progress, truthful', () => {
  // The rate (rows created since the first request, per minute; never a minute's floor) is test/output/import-progress.test.ts's.
  it('at 60 columns the bar goes when the line would not fit, and the counts, the rate and the time left stay whole; the rate reads `measuring` until 10 rows were answered', async (t) => {
    const setup = await setupE2e(t, slowCreator(500));
    const tty = importInTerminal(t, setup, rowsFile(setup.configDir, 'intake.ndjson', 40, 'P'), 60);
    // 3 to 8 rows at 0.5 s each: more than a second of sending, fewer than 10 requests.
    const early = barRow(await tty.waitFor(/^import [3-8]\/40 · /m, 20_000));
    expect(early).toMatch(/^import [3-8]\/40 · rate: measuring · 429s: 0 · ~[\d.ms]+ left$/);
    // With a rate as short as `120/min` the bar fits again.
    const later = barRow(await tty.waitFor(/^import \[[#.]{10}\] 1\d\/40 · \d+\/min /m, 20_000));
    expect(later).toMatch(/^import \[[#.]{10}\] 1\d\/40 · \d+\/min · 429s: 0 · ~[\d.ms]+ left$/);
    for (const line of [early, later]) expect(line.length).toBeLessThan(60);
    tty.press('C-c');
    tty.press('C-c');
    expect(await tty.exitCode(20_000)).toBe(130);
  });

  it('Ctrl-C in a terminal: the request in flight finishes, the summary, then how many rows a rerun sends; the rerun sends exactly those', async (t) => {
    const setup = await setupE2e(t, slowCreator(300));
    const file = rowsFile(setup.configDir, 'intake.ndjson', 100, 'P');
    const tty = importInTerminal(t, setup, file);
    await tty.waitFor(/import \[[#.]+\] [3-9]\/100 /, 20_000);
    tty.press('C-c');
    expect(await tty.exitCode(20_000)).toBe(130);

    const text = tty.text();
    const created = Number(SUMMARY.exec(text)?.[1]);
    expect(setup.server.requests).toHaveLength(created);
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const summaryAt = lines.findIndex((line) => SUMMARY.test(line));
    expect(lines[summaryAt + 1]).toBe(`rerun the same command to send the ${100 - created} rows not sent yet`);
    expect(text).toContain('petctl: stopping: no new requests; waiting for the ones in flight');

    const rerun = await setup.petctl(['pets', 'add', '--file', file, '--concurrency', '4']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(setup.server.requests).toHaveLength(100);
    expect(rerun.stderr).toMatch(new RegExp(`^created ${100 - created}, skipped ${created}, `, 'm'));
  });
});
