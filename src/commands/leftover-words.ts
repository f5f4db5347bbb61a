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

/** Too many arguments: the quote hint when the words follow a flag's value, else what the command takes. */
export function leftoverWordsError(command: Command, argv: string[], help: string): UsageError {
  const unquoted = unquotedValueError(command, argv);
  if (unquoted !== undefined) return unquoted;
  const expected = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const takes = expected.length === 0 ? 'takes no arguments' : `takes ${expected.length} argument${expected.length === 1 ? '' : 's'} (${expected.join(' ')})`;
  return new UsageError(`${commandPath(command)} ${takes}; unexpected ${quoteAll(leftoverWords(command, argv).bare)}`, help);
}

/**
 * Words after a flag's value where petctl expected none or a command (`petctl -p my shelter pets
 * list`): the flag with its words in quotes; undefined when no flag value precedes them.
 */
export function unquotedValueError(command: Command, argv: string[]): UsageError | undefined {
  const { afterFlags } = leftoverWords(command, argv);
  const [first] = afterFlags;
  if (first === undefined) return undefined;
  const message = `unexpected ${quoteAll(first.leftover)} after ${first.flag} ${first.words[0]}`;
  return new UsageError(message, `quote a value with spaces: ${afterFlags.map(({ flag, words }) => `${flag} ${quoted(words.join(' '))}`).join(' ')}`);
}

/**
 * Walks argv as commander did, from the root down the command words: the words past the
 * command's arguments, grouped after the flag value they follow, or bare.
 */
function leftoverWords(command: Command, argv: string[]): { afterFlags: FlagValue[]; bare: string[] } {
  const afterFlags: FlagValue[] = [];
  const bare: string[] = [];
  let at = rootOf(command);
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
      const option = optionOf(at, flag);
      if (option === undefined || !(option.required || option.optional)) continue;
      if (inline !== undefined) last = { flag, words: [inline], leftover: [] };
      else if (i + 1 < argv.length && (option.required || !argv[i + 1]!.startsWith('-'))) last = { flag, words: [argv[++i]!], leftover: [] };
      continue;
    }
    const sub = at.commands.find((candidate) => candidate.name() === word);
    if (sub !== undefined || (at === command && operands++ < command.registeredArguments.length)) {
      at = sub ?? at;
      last = undefined;
    } else if (last === undefined) bare.push(word);
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

/** A flag of the command or of one of its parents (global flags may follow the command). */
function optionOf(command: Command, flag: string): Option | undefined {
  for (let at: Command | null = command; at !== null; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (option !== undefined) return option;
  }
  return undefined;
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}

/** As a shell would take it back: double quotes, or single ones when the text holds what double quotes expand. */
function quoted(text: string): string {
  return /["$`\\!]/.test(text) && !text.includes("'") ? `'${text}'` : JSON.stringify(text);
}

function quoteAll(words: string[]): string {
  return words.map((word) => `"${word}"`).join(' ');
}
