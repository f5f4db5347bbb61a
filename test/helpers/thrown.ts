import { expect } from 'vitest';

/** The error `fn` throws, which must be a `kind`: the test fails when `fn` returns. */
export function thrown<E extends Error>(fn: () => unknown, kind: abstract new (...args: never[]) => E): E {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(kind);
    return error as E;
  }
  throw new Error('expected a throw, but it returned');
}
