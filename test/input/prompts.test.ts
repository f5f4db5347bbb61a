import { expect, it } from 'vitest';
import { completePetFields } from '../../src/input/prompts';
import { fakeContext } from '../helpers/terminal';

// When petctl may prompt: test/terminal.test.ts "the terminal facts"; the typing itself: test/e2e/terminal.test.ts.

it('completePetFields off a terminal: gives back complete flags untouched, and the usage error for a missing one', async (t) => {
  const { ctx, io } = fakeContext(t);
  await expect(completePetFields(ctx, { name: 'Rex', categoryId: 1 })).resolves.toEqual({ name: 'Rex', categoryId: 1 });
  await expect(completePetFields(ctx, { categoryId: 1 })).rejects.toMatchObject({ exitCode: 2, message: "required option '--name <name>' not specified" });
  await expect(completePetFields(ctx, { name: 'Rex' })).rejects.toMatchObject({ exitCode: 2, message: "required option '--category-id <int64>' not specified" });
  expect(io.stderr.text()).toBe('');
});
