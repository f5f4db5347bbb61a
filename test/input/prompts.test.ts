import { describe, expect, it } from 'vitest';
import { completePetFields } from '../../src/input/prompts';
import { fakeContext, fakeStdin } from '../helpers/terminal';

/** When petctl may prompt; the typing itself is tested through a real terminal in test/e2e/prompts.test.ts. */

describe('ctx.terminal.canPrompt', () => {
  it.for([
    [{ stdin: true, stderr: true }, {}, true],
    [{ stdin: true, stderr: false }, {}, false],
    [{ stdin: false, stderr: true }, {}, false],
    [{ stdin: true, stderr: true }, { PETCTL_NO_INPUT: '1' }, false],
    [{ stdin: true, stderr: true }, { PETCTL_NO_INPUT: 'true' }, false],
    [{ stdin: true, stderr: true }, { PETCTL_NO_INPUT: '' }, true],
    [{ stdin: true, stderr: true }, { PETCTL_NO_INPUT: '0' }, true],
  ] as const)('%o with %o → %s', ([tty, env, expected], t) => {
    const { ctx } = fakeContext(t, { stdin: fakeStdin({ tty: tty.stdin }), stderrTTY: tty.stderr, env });
    expect(ctx.terminal.canPrompt()).toBe(expected);
  });

  it('--no-input turns prompts off on a terminal', (t) => {
    const { ctx } = fakeContext(t, { stdin: fakeStdin({ tty: true }), stderrTTY: true, globals: { noInput: true } });
    expect(ctx.terminal.canPrompt()).toBe(false);
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
