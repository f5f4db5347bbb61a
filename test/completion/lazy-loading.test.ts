import { describe, expect, it, vi } from 'vitest';
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

describe('__complete', () => {
  it('reads profile names without conf, and loads nothing of the HTTP core', async (t) => {
    const dir = configDirWith({ activeProfile: 'staging', profiles: { staging: { baseUrl: 'https://staging.example.org/v1' } } });
    const noop = () => {};
    const outputs: string[] = [];
    loaded.clear();
    for (const words of [['-p', ''], ['profile', 'use', ''], ['pets', 'list', '--status', ''], ['pe']]) {
      const { ctx, io } = fakeContext(t, { env: { PETCTL_CONFIG_DIR: dir } });
      await completeRun({ words, program: buildProgram(async () => {}, { writeOut: noop }) }, ctx);
      outputs.push(io.stdout.text());
    }
    expect(outputs).toEqual(['sandbox\t\nstaging\t\n', 'sandbox\t\nstaging\t\n', 'available\t\npending\t\nsold\t\n', 'pets\tbrowse and add animals up for adoption\n']);
    expect([...loaded]).toEqual([]);
  });
});
