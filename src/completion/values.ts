import type { Argument, Option } from 'commander';

/**
 * Values known only at completion time (profile names, read on every TAB; `petctl help`'s words;
 * --concurrency's `auto`), tagged where a command declares the option or argument. Choices
 * (commander's `.choices()`) and paths (a `<file>` or `<path>` placeholder) need no tag.
 */
export type DynamicValues = 'profiles' | 'help-topics' | 'concurrency';

const tags = new WeakMap<Option | Argument, DynamicValues>();

/** Marks `target` as taking `values`; returns it, to chain inside addOption/addArgument. */
export function completesWith<T extends Option | Argument>(target: T, values: DynamicValues): T {
  tags.set(target, values);
  return target;
}

export function dynamicValuesOf(target: Option | Argument): DynamicValues | undefined {
  return tags.get(target);
}
