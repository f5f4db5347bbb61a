import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, newApiKey, tempDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * Nothing a person writes to the built-in sandbox passes for live data: on a
 * terminal, the first write it accepts says once on stderr where it went. The
 * built binary, the embedded sandbox on a fresh install, a real terminal (tmux).
 */

const LINE = 'sandbox: created in the built-in sandbox, not a real service';

function fresh(): { configDir: string; env: Record<string, string> } {
  const configDir = tempDir();
  return { configDir, env: { PETCTL_CONFIG_DIR: configDir } };
}

const times = (text: string) => text.split(LINE).length - 1;

describe.concurrent('a write to the built-in sandbox, on a terminal', () => {
  it.for([
    { what: 'pets add', args: ['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', 'available'] },
    { what: 'api POST', args: ['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'] },
  ])('$what says once on stderr that it went to the built-in sandbox', async ({ args }, t) => {
    const { env } = fresh();
    const tty = openTerminal(t, args, env);
    expect(await tty.exitCode()).toBe(0);
    expect(times(tty.text())).toBe(1);
    expect(tty.stdout()).not.toContain(LINE);
  });

  it('a bulk import of three rows says it once, not once a row', async (t) => {
    const { configDir, env } = fresh();
    const rows = path.join(configDir, 'rows.ndjson');
    fs.writeFileSync(rows, ['Rex', 'Tom', 'Kit'].map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n') + '\n');
    const tty = openTerminal(t, ['pets', 'add', '--file', rows], env);
    expect(await tty.exitCode()).toBe(0);
    expect(times(tty.text())).toBe(1);
  });

  it('only writes on a terminal to the built-in sandbox say it: not a read, not a piped write, not a write to a service a profile points at', async (t) => {
    const { configDir, env } = fresh();
    const read = openTerminal(t, ['pets', 'list', '--limit', '1'], env);
    expect(await read.exitCode()).toBe(0);
    expect(times(read.text())).toBe(0);

    const piped = await cliSession({ env })(['pets', 'add', '--name', 'Rex', '--category-id', '1']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain(LINE);

    const builtIn = openTerminal(t, ['pets', 'add', '--name', 'Rex', '--category-id', '1'], env);
    expect(await builtIn.exitCode()).toBe(0);
    expect(times(builtIn.text())).toBe(1);

    // A sandbox the user started (petctl sandbox) is a service like another: the profile names its URL.
    const started = await startScriptedServer(json(201, { id: 1, name: 'Rex', categoryId: 1 }));
    t.onTestFinished(() => started.close());
    fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: started.baseUrl } } }), { mode: 0o600 });
    const elsewhere = openTerminal(t, ['pets', 'add', '--name', 'Rex', '--category-id', '1'], { ...env, PETCTL_API_KEY: newApiKey() });
    expect(await elsewhere.exitCode()).toBe(0);
    expect(started.requests).toHaveLength(1);
    expect(times(elsewhere.text())).toBe(0);
  });
});
