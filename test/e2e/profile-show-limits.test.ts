import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli';

/**
 * `profile show` stays offline: it shows the key's limits as this machine last
 * saw them (from the rate-limit state), in local time, or says that nothing is
 * known and that `auth status` asks the service.
 */

describe('profile show: the rate limit as last seen on this machine', () => {
  it('says nothing is known on a fresh machine, then shows what an import saw, then what auth status reported', async () => {
    const configDir = tempDir();
    const env = { PETCTL_CONFIG_DIR: configDir, TZ: 'Asia/Kathmandu' };

    const fresh = await runCli(['profile', 'show'], { env });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/^Rate limit: +none seen on this machine in the current window \(petctl auth status asks the service\)$/m);
    expect(fresh.stdout).toContain(`Config:`);

    const rows = path.join(configDir, 'two.csv');
    fs.writeFileSync(rows, 'name,categoryId\nMilo,1\nNala,2\n');
    const imported = await runCli(['pets', 'add', '--file', rows, '-q'], { env });
    expect(imported.code, imported.stderr).toBe(0);

    const shown = await runCli(['profile', 'show'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    // Local time (Kathmandu is UTC+5:45), to the second.
    expect(shown.stdout).toMatch(/^Rate limit: +58 of 60 left, resets \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; as last seen on this machine/m);
    const json = await runCli(['profile', 'show', '-o', 'json'], { env });
    const { rateLimit } = JSON.parse(json.stdout) as { rateLimit: { limit: number; remaining: number; reset: string } };
    expect(rateLimit).toMatchObject({ limit: 60, remaining: 58 });
    const resetText = /resets (\S+ \S+);/.exec(shown.stdout)![1]!;
    const utc = new Date(rateLimit.reset);
    const kathmandu = new Date(utc.getTime() + (5 * 60 + 45) * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    expect(resetText).toBe(kathmandu);

    // After auth status, the limit and the count it reported.
    const status = await runCli(['auth', 'status', '-o', 'json'], { env });
    expect(status.code, status.stderr).toBe(0);
    const reported = (JSON.parse(status.stdout) as { rateLimit: { limit: number; remaining: number } }).rateLimit;
    const after = await runCli(['profile', 'show', '-o', 'json'], { env });
    expect((JSON.parse(after.stdout) as { rateLimit: unknown }).rateLimit).toMatchObject({ limit: reported.limit, remaining: reported.remaining });
  });
});
