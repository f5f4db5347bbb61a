import fs from 'node:fs';
import { type TestContext, describe, expect, it } from 'vitest';
import { type CliResult, expectCleanError, newApiKey, runCli, setupE2e, tempConfigDir } from '../helpers/cli';

/**
 * Every retry is named on stderr, however short its wait, with its number
 * and reason; the final error says how many attempts were made and over how
 * long. Through the built binary against real sockets on 127.0.0.1. A timeout's
 * retries and a refused port's none are in test/e2e/faults.test.ts.
 */

/** A config directory of its own, removed when the test ends. */
function configFor(t: Pick<TestContext, 'onTestFinished'>): string {
  const dir = tempConfigDir();
  t.onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const retryLines = (result: CliResult) => result.stderr.split('\n').filter((line) => line.startsWith('petctl: retry '));

/** The seconds in `…, 3 attempts over 1.6s (code)`. */
function attemptsOver(result: CliResult, count: number): number {
  const match = new RegExp(`, ${count} attempts over (\\d+(?:\\.\\d)?)s \\(\\w+\\)$`, 'm').exec(result.stderr);
  expect(match, result.stderr).not.toBeNull();
  return Number(match![1]);
}

describe('every retry is named, and the final error counts the attempts', () => {
  it('a connection the server drops: retries named with the reason, even those under a second', async (t) => {
    const { server, petctl } = await setupE2e(t, { destroy: true });

    const result = await petctl(['--retries', '2', 'pets', 'list']);

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(server.requests).toHaveLength(3);
    const reason = /connection reset by the server|the connection closed before the answer was complete/;
    expect(retryLines(result)).toHaveLength(2);
    for (const [index, line] of retryLines(result).entries()) {
      expect(line).toMatch(new RegExp(`^petctl: retry ${index + 1}/2 in \\d+(\\.\\d)?s: `));
      expect(line).toMatch(reason);
    }
    attemptsOver(result, 3);
  });

  it('-q silences the retries but not the count in the final error', async (t) => {
    const { petctl } = await setupE2e(t, { destroy: true });

    const result = await petctl(['-q', '--retries', '1', 'pets', 'list']);

    expect(result.code).toBe(7);
    expect(retryLines(result)).toEqual([]);
    attemptsOver(result, 2);
  });

  it('an unknown host is final: no retry, the host named, and no count of attempts', async (t) => {
    const configDir = configFor(t);
    const key = newApiKey();
    const result = await runCli(['--base-url', 'https://petctl-test.invalid/v1', '--retries', '1', 'pets', 'list'], {
      env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key },
      secrets: [key],
    });

    expect(result.code).toBe(7);
    expectCleanError(result);
    expect(retryLines(result)).toEqual([]);
    expect(result.stderr).toMatch(/^error: GET https:\/\/petctl-test\.invalid\/v1\/pets failed: cannot resolve the host petctl-test\.invalid \(network_error\)$/m);
  });
});
