import type { Command, Option } from 'commander';
import { UsageError } from '../errors';
import { commandPath } from './root';

/**
 * Words commander found no place for (`too many arguments`), told in the user's terms.
 * The usual cause is a value with spaces left unquoted, `--name Mr Whiskers`: the shell
 * gave petctl two words, and the hint shows the flag with its words joined in quotes.
 */

interface FlagValue {
  flag: string;
  words: string[];
  leftover: string[];
}

export function leftoverWordsError(command: Command, argv: string[], help: string): UsageError {
  const { afterFlags, bare } = leftoverWords(command, argv);
  const path = commandPath(command);
  if (afterFlags.length > 0) {
    const [first] = afterFlags;
    const message = `unexpected ${quoteAll(first!.leftover)} after ${first!.flag} ${first!.words[0]}`;
    return new UsageError(message, `quote a value with spaces: ${afterFlags.map(({ flag, words }) => `${flag} ${quoted(words.join(' '))}`).join(' ')}`);
  }
  const expected = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const takes = expected.length === 0 ? 'takes no arguments' : `takes ${expected.length} argument${expected.length === 1 ? '' : 's'} (${expected.join(' ')})`;
  return new UsageError(`${path} ${takes}; unexpected ${quoteAll(bare)}`, help);
}

/** Walks argv as commander did: the words past the command's arguments, grouped after the flag value they follow. */
function leftoverWords(command: Command, argv: string[]): { afterFlags: FlagValue[]; bare: string[] } {
  const names = commandPath(command).split(' ').slice(1);
  const options = optionsOf(command);
  const afterFlags: FlagValue[] = [];
  const bare: string[] = [];
  let named = 0;
  let operands = 0;
  let last: FlagValue | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      bare.push(...argv.slice(i + 1).slice(Math.max(0, command.registeredArguments.length - operands)));
      break;
    }
    if (word.startsWith('-') && word.length > 1) {
      last = undefined;
      const [flag, inline] = splitInline(word);
      const option = options.get(flag);
      if (option === undefined || !(option.required || option.optional)) continue;
      if (inline !== undefined) last = { flag, words: [inline], leftover: [] };
      else if (i + 1 < argv.length && (option.required || !argv[i + 1]!.startsWith('-'))) last = { flag, words: [argv[++i]!], leftover: [] };
      continue;
    }
    if (named < names.length && word === names[named]) {
      named += 1;
      last = undefined;
      continue;
    }
    if (operands++ < command.registeredArguments.length) {
      last = undefined;
      continue;
    }
    if (last === undefined) bare.push(word);
    else {
      if (last.leftover.length === 0) afterFlags.push(last);
      last.words.push(word);
      last.leftover.push(word);
    }
  }
  return { afterFlags, bare };
}

function splitInline(word: string): [string, string | undefined] {
  const at = word.indexOf('=');
  return word.startsWith('--') && at !== -1 ? [word.slice(0, at), word.slice(at + 1)] : [word, undefined];
}

/** Every flag the command accepts, its own and its ancestors' (global flags may follow the command). */
function optionsOf(command: Command): Map<string, Option> {
  const options = new Map<string, Option>();
  for (let at: Command | null = command; at !== null; at = at.parent) {
    for (const option of at.options) {
      if (option.long !== undefined) options.set(option.long, option);
      if (option.short !== undefined) options.set(option.short, option);
    }
  }
  return options;
}

/** As a shell would take it back: double quotes, or single ones when the text holds what double quotes expand. */
function quoted(text: string): string {
  return /["$`\\!]/.test(text) && !text.includes("'") ? `'${text}'` : JSON.stringify(text);
}

function quoteAll(words: string[]): string {
  return words.map((word) => `"${word}"`).join(' ');
}
