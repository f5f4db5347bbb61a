import { describe, expect, it } from 'vitest';
import { completePetFields } from '../../src/input/prompts';
import { fakeContext } from '../helpers/terminal';

/** When petctl may prompt; the typing itself is tested through a real terminal in test/e2e/prompts.test.ts. */

// Each mix of terminals and settings is test/terminal.test.ts's "the terminal facts"; here the Context hands them over.
describe('ctx.terminal.canPrompt', () => {
  it.for([
    [{}, {}, true],
    [{ PETCTL_NO_INPUT: '1' }, {}, false],
    [{}, { noInput: true }, false],
  ] as const)('on a terminal, env %o, globals %o → %s', ([env, globals, expected], t) => {
    const { ctx } = fakeContext(t, { stdinTTY: true, stderrTTY: true, env, globals });
    expect(ctx.terminal.canPrompt()).toBe(expected);
  });
});

describe('completePetFields off a terminal', () => {
  it('gives back complete flags untouched, and the usage error for a missing one', async (t) => {
    const { ctx, io } = fakeContext(t);
    await expect(completePetFields(ctx, { name: 'Rex', categoryId: 1 })).resolves.toEqual({ name: 'Rex', categoryId: 1 });
    await expect(completePetFields(ctx, { categoryId: 1 })).rejects.toMatchObject({ exitCode: 2, message: "required option '--name <name>' not specified" });
    await expect(completePetFields(ctx, { name: 'Rex' })).rejects.toMatchObject({ exitCode: 2, message: "required option '--category-id <int64>' not specified" });
    expect(io.stderr.text()).toBe('');
  });
});
