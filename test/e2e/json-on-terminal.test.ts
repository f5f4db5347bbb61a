import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { json } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * A pet name holding U+009B and U+202E, as JSON on a real terminal (tmux): both shown as `\u` escapes,
 * still the same JSON value; piped, the bytes as they always were.
 */

const NAME = 'Rex\u009b2J\u202eevil';
const PETS = [{ id: 1, name: NAME, categoryId: 2, status: 'available' }];
/** The name as the terminal shows it: the escapes as text. */
const SHOWN = 'Rex\\u009b2J\\u202eevil';

const PRETTY = `${JSON.stringify(PETS, null, 2)}\n`;
const LINE = `${JSON.stringify(PETS[0])}\n`;

describe.concurrent('JSON on a terminal: C1 and bidi controls as \\u escapes, the same JSON value; piped, the bytes unchanged', () => {
  it.for([
    ['-o json', ['-o', 'json', 'pets', 'list'], PRETTY],
    ['-o ndjson', ['-o', 'ndjson', 'pets', 'list'], LINE],
    ['--query', ['--query', '[0]', 'pets', 'list'], `${JSON.stringify(PETS[0], null, 2)}\n`],
    ['pets list --all -o json', ['-o', 'json', 'pets', 'list', '--all'], PRETTY],
    ['api -o json', ['-o', 'json', 'api', '/pets'], PRETTY],
    ['api --paginate -o ndjson', ['-o', 'ndjson', 'api', '--paginate', '/pets'], LINE],
  ] satisfies [string, string[], string][])('%s', async ([, args, piped], t) => {
    const { server, key, configDir, petctl } = await setupE2e(t, json(200, PETS));
    const tty = openTerminal(t, ['--base-url', server.baseUrl, ...args], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { stdoutToTerminal: true, width: 200 });
    expect(await tty.exitCode()).toBe(0);
    // tmux draws the pty's output on its own time: wait for the last line.
    await tty.waitFor(/[\]}]\s*$/);
    const shown = tty.text().trim();
    expect(shown).toContain(SHOWN);
    expect(JSON.parse(shown)).toEqual(JSON.parse(piped));

    const result = await petctl(args);
    expect(result.code, result.stderr).toBe(0);
    expect(Buffer.from(result.stdout)).toEqual(Buffer.from(piped));
    expect(result.stdout).toContain(NAME);
  });
});

describe("a bulk import's row results on a terminal", () => {
  it.for([['json'], ['ndjson']])('-o %s: the pet the server answered shows its controls as \\u escapes', async ([format], t) => {
    const { server, key, configDir } = await setupE2e(t, json(201, PETS[0]!));
    const file = path.join(configDir, 'rows.csv');
    fs.writeFileSync(file, 'name,categoryId,status\nRex,2,available\n');
    const args = ['--base-url', server.baseUrl, '-o', format!, 'pets', 'add', '--file', file];
    const tty = openTerminal(t, args, { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { stdoutToTerminal: true, width: 200 });
    expect(await tty.exitCode()).toBe(0);
    await tty.waitFor(/\\u202eevil/);
    expect(tty.text()).toContain(SHOWN);
  });
});
