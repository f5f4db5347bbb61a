import type { Command, CommanderError, Option } from 'commander';
import { UsageError } from '../errors';

/**
 * A usage error commander found, in petctl's words, with the closest help in its hint. Commander
 * writes the message (a bad value's is the parsers' own: commands/parsers.ts), suggests a command
 * or flag for a typo (showSuggestionAfterError), and names the command where parsing failed
 * (root.ts's exitOverride); this lays the suggestion on the message's line, and says what to do
 * with words it found no place for (`too many arguments`). The usual cause of those is a value
 * with spaces left unquoted, `--name Mr Whiskers`: the shell gave petctl two words, and the hint
 * shows the flag with its words joined in quotes.
 */

/**
 * A commander error as petctl's UsageError; undefined for help and --version, which end well (and
 * a group without a command, `petctl pets`, whose help root.ts prints on stdout).
 */
export function usageError(error: CommanderError, argv: string[]): UsageError | undefined {
  if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) return undefined;
  // root.ts's exitOverride names it on every error commander throws.
  const { failedIn } = error as CommanderError & { failedIn: Command };
  // Commander's message, and its suggestion for a typo on a line of its own: `(Did you mean one of pets, profile?)`.
  const [message, suggestion] = error.message.slice('error: '.length).split('\n(Did you mean ');
  const suggested = suggestion?.replace(/^one of /, '').slice(0, -'?)'.length).split(', ') ?? [];
  const help = `see ${commandPath(closestCommand(failedIn, error.code, suggested))} --help`;
  if (error.code === 'commander.excessArguments') return leftoverWordsError(failedIn, argv, help);
  // An unknown command that is no typo of one may be the rest of a value: `-p my shelter pets list`.
  if (error.code === 'commander.unknownCommand' && suggestion === undefined) return unquotedValueError(failedIn, argv) ?? new UsageError(message!, help);
  if (suggestion === undefined) return new UsageError(message!, help);
  const oneOf = suggested.length > 1 ? 'one of ' : '';
  return new UsageError(`${message} (did you mean ${oneOf}${suggested.map((name) => `'${name}'`).join(', ')}?)`, help);
}

/**
 * The command whose help is closest to what was typed: where parsing failed, or, for an unknown
 * command with one suggestion, the suggestion followed by the words after it: `petctl pet list`
 * -> `petctl pets list`.
 */
function closestCommand(failedIn: Command, code: string, suggested: string[]): Command {
  let command = code === 'commander.unknownCommand' && suggested.length === 1 ? failedIn.commands.find((sub) => sub.name() === suggested[0]) : undefined;
  if (command === undefined) return failedIn;
  // commander's args at this point: the unknown word, then the rest of the line.
  for (const word of failedIn.args.slice(1)) {
    const sub: Command | undefined = command.commands.find((candidate) => candidate.name() === word);
    if (sub === undefined) break;
    command = sub;
  }
  return command;
}

/** `petctl pets list` for the list command. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

interface FlagValue {
  flag: string;
  words: string[];
  leftover: string[];
}

/** Too many arguments: the quote hint when the words follow a flag's value, else what the command takes. */
function leftoverWordsError(command: Command, argv: string[], help: string): UsageError {
  const unquoted = unquotedValueError(command, argv);
  if (unquoted !== undefined) return unquoted;
  const expected = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const takes = expected.length === 0 ? 'takes no arguments' : `takes ${expected.length} argument${expected.length === 1 ? '' : 's'} (${expected.join(' ')})`;
  // The words commander found no place for: its operands past the command's arguments.
  return new UsageError(`${commandPath(command)} ${takes}; unexpected ${quoteAll(command.args.slice(expected.length))}`, help);
}

/**
 * Words after a flag's value where petctl expected none or a command (`petctl -p my shelter pets
 * list`): the flag with its words in quotes; undefined when no flag value precedes them.
 */
function unquotedValueError(command: Command, argv: string[]): UsageError | undefined {
  const afterFlags = wordsAfterValues(command, argv);
  const [first] = afterFlags;
  if (first === undefined) return undefined;
  const message = `unexpected ${quoteAll(first.leftover)} after ${first.flag} ${first.words[0]}`;
  return new UsageError(message, `quote a value with spaces: ${afterFlags.map(({ flag, words }) => `${flag} ${quoted(words.join(' '))}`).join(' ')}`);
}

/**
 * Walks argv as commander did, from the root down the command words: the words past the
 * command's arguments that follow a flag's value, grouped after it. Commander keeps no order
 * of its options beside its operands, which this needs.
 */
function wordsAfterValues(command: Command, argv: string[]): FlagValue[] {
  const afterFlags: FlagValue[] = [];
  let at = rootOf(command);
  let operands = 0;
  let last: FlagValue | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
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
    } else if (last !== undefined) {
      if (last.leftover.length === 0) afterFlags.push(last);
      last.words.push(word);
      last.leftover.push(word);
    }
  }
  return afterFlags;
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
