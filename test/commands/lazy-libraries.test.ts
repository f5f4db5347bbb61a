import { expect, it, vi } from 'vitest';
import { main } from '../../src/main';
import { newApiKey, tempDir } from '../helpers/cli';
import { fakeIo } from '../helpers/terminal';
import { startScriptedServer } from '../helpers/scripted-server';

/** Each mock records its module's import, then hands back the real one. In order: once a module is loaded it stays loaded. */

const { loaded, recorded } = await vi.hoisted(async () => (await import('../helpers/loaded-modules')).moduleRecorder());
vi.mock('jmespath', recorded('jmespath'));
vi.mock('@inquirer/input', recorded('@inquirer/input'));
vi.mock('@inquirer/select', recorded('@inquirer/select'));
vi.mock('http-link-header', recorded('http-link-header'));
vi.mock('string-width', recorded('string-width'));

async function run(argv: string[], env: Record<string, string> = {}): Promise<number> {
  return main(argv, { io: fakeIo(), env: { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: newApiKey(), ...env }, signal: new AbortController().signal });
}

it('libraries load only when used: --help and a plain pets list/add load none; --all loads the Link parser, --query jmespath', async (t) => {
  const server = await startScriptedServer({ status: 200, body: '[{"id":1,"name":"Rex","categoryId":1}]' });
  t.onTestFinished(() => server.close());
  expect(await run(['--help'])).toBe(0);
  expect(await run(['pets', 'list', '--help'])).toBe(0);
  expect(await run(['--base-url', server.baseUrl, 'pets', 'list', '-o', 'json'])).toBe(0);
  expect(await run(['--base-url', server.baseUrl, 'api', '/pets'])).toBe(0);
  // Missing flags off a terminal: the usage error, without the prompt library.
  expect(await run(['--base-url', server.baseUrl, 'pets', 'add', '--name', 'Rex'])).toBe(2);
  expect([...loaded]).toEqual([]);
  expect(await run(['--base-url', server.baseUrl, 'pets', 'list', '--all'])).toBe(0);
  expect([...loaded]).toEqual(['http-link-header']);
  expect(await run(['--base-url', server.baseUrl, 'pets', 'list', '--query', '[].id'])).toBe(0);
  expect([...loaded].sort()).toEqual(['http-link-header', 'jmespath']);
});
