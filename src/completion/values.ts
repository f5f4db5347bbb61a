import type { Argument, Option } from 'commander';

/**
 * Values an option or argument takes that only exist at completion time:
 * profile names are read from the config on every TAB, so a profile added a
 * moment ago completes at once; `petctl help` takes a guide or the words of a
 * command, which depend on the words before; `--concurrency` takes `auto` or a number, and only
 * the word is offered. Commands tag what they declare; the completion
 * engine reads the tag. Fixed choices need no tag (commander's `.choices()`),
 * nor do file paths (a `<file>` or `<path>` placeholder says so).
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
