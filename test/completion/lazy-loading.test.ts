import fs from 'node:fs';
import path from 'node:path';
import { expect, it, vi } from 'vitest';
import { completeRun } from '../../src/commands/completion';
import { buildProgram } from '../../src/commands/root';
import { configDirWith } from '../helpers/cli';
import { fakeContext } from '../helpers/terminal';

/** A TAB starts petctl every time: __complete reads config.json plainly (not through conf) and loads nothing of the HTTP core. */
const { loaded, recorded } = await vi.hoisted(async () => (await import('../helpers/loaded-modules')).moduleRecorder());
vi.mock('conf', recorded('conf'));
vi.mock('proper-lockfile', recorded('proper-lockfile'));
vi.mock('zod/mini', recorded('zod/mini'));
vi.mock('undici/lib/dispatcher/agent.js', recorded('undici'));
vi.mock('../../src/app/session', recorded('app/session'));

it('reads profile names at TAB time without conf, and loads nothing of the HTTP core', async (t) => {
  const profiles = { staging: { baseUrl: 'https://staging.example.org/v1' } };
  const dir = configDirWith({ activeProfile: 'staging', profiles });
  const complete = async (words: string[]) => {
    const { ctx, io } = fakeContext(t, { env: { PETCTL_CONFIG_DIR: dir } });
    await completeRun({ words, program: buildProgram(async () => {}, { writeOut: () => {} }) }, ctx);
    return io.stdout.text();
  };
  loaded.clear();
  const outputs: string[] = [];
  for (const words of [['-p', ''], ['profile', 'use', ''], ['pets', 'list', '--status', ''], ['pe']]) {
    outputs.push(await complete(words));
  }
  expect(outputs).toEqual(['sandbox\t\nstaging\t\n', 'sandbox\t\nstaging\t\n', 'available\t\npending\t\nsold\t\n', 'pets\tbrowse and add animals up for adoption\n']);
  // A profile added since is offered at the next TAB.
  const config = { profiles: { ...profiles, 'qa.2': { baseUrl: 'https://qa.example.org/v1' } } };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  expect(await complete(['-p', ''])).toBe('sandbox\t\nqa.2\t\nstaging\t\n');
  expect([...loaded]).toEqual([]);
});
