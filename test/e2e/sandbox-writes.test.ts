import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSession, newApiKey, tempDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * Nothing a person writes to the built-in sandbox passes for live data: on a terminal, the first write it
 * accepts says once on stderr where it went. The embedded sandbox on a fresh install, a real terminal (tmux).
 */

const LINE = 'sandbox: created in the built-in sandbox, not a real service';
const times = (text: string) => text.split(LINE).length - 1;
const ADD = ['pets', 'add', '--name', 'Rex', '--category-id', '1'];

describe.concurrent('a write to the built-in sandbox, on a terminal', () => {
  it.for([
    { what: 'pets add', args: () => [...ADD, '--status', 'available'], said: 1 },
    { what: 'api POST', args: () => ['api', '/pets', '-f', 'name=Rex', '-F', 'categoryId=1'], said: 1 },
    { what: 'a bulk import of three rows (not once a row)', args: (dir: string) => ['pets', 'add', '--file', path.join(dir, 'rows.ndjson')], said: 1 },
    { what: 'a read (pets list)', args: () => ['pets', 'list', '--limit', '1'], said: 0 },
  ])('$what says so $said time(s) on stderr, never on stdout', async ({ args, said }, t) => {
    const configDir = tempDir();
    fs.writeFileSync(path.join(configDir, 'rows.ndjson'), ['Rex', 'Tom', 'Kit'].map((name) => JSON.stringify({ name, categoryId: 1 })).join('\n'));
    const tty = openTerminal(t, args(configDir), { PETCTL_CONFIG_DIR: configDir });
    expect(await tty.exitCode()).toBe(0);
    expect(times(tty.text())).toBe(said);
    expect(tty.stdout()).not.toContain(LINE);
  });

  it('a piped write says nothing (and the next on a terminal still does), nor a write on a terminal to a service a profile points at', async (t) => {
    const configDir = tempDir();
    const piped = await cliSession({ env: { PETCTL_CONFIG_DIR: configDir } })(ADD);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain(LINE);
    const builtIn = openTerminal(t, ADD, { PETCTL_CONFIG_DIR: configDir });
    expect(await builtIn.exitCode()).toBe(0);
    expect(times(builtIn.text())).toBe(1);

    // A sandbox the user started (petctl sandbox) is a service like another: the profile names its URL.
    const started = await startScriptedServer(json(201, { id: 1, name: 'Rex', categoryId: 1 }));
    t.onTestFinished(() => started.close());
    fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: started.baseUrl } } }), { mode: 0o600 });
    const elsewhere = openTerminal(t, ADD, { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: newApiKey() });
    expect(await elsewhere.exitCode()).toBe(0);
    expect(started.requests).toHaveLength(1);
    expect(times(elsewhere.text())).toBe(0);
  });
});
