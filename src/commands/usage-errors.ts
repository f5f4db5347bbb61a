import type { Command, CommanderError, Option } from 'commander';
import { findOption, findSubcommand, takesValue } from '../completion/complete';
import { UsageError } from '../errors';

/** A commander error as a UsageError: its suggestion on the message's line, the closest help in the hint, and for words
 * left over, the usual cause (`--name Mr Whiskers`). Undefined for help and --version, which end well. */
export function usageError(error: CommanderError, argv: string[]): UsageError | undefined {
  if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) return undefined;
  // root.ts's exitOverride names it on every error commander throws.
  const { failedIn } = error as CommanderError & { failedIn: Command };
  // Commander's message, and its suggestion for a typo on a line of its own: `(Did you mean one of pets, profile?)`.
  const [message, suggestion] = error.message.slice('error: '.length).split('\n(Did you mean ');
  const named = suggestion?.replace(/^one of /, '').slice(0, -'?)'.length).split(', ') ?? [];
  // For a word that starts with `--`, commander cuts two characters off each command's name too (`petctl -- --help`:
  // '--lp'): only a command that exists is suggested.
  const unknownCommand = error.code === 'commander.unknownCommand';
  const exists = (name: string) => findSubcommand(failedIn, name) !== undefined;
  const typo = named.length > 0 ? named : oneDash(message!, failedIn);
  const suggested = unknownCommand ? named.filter(exists) : typo;
  const help = `see ${commandPath(closestCommand(failedIn, error.code, suggested))} --help`;
  const excess = error.code === 'commander.excessArguments';
  // Words left over, or an unknown command that is no typo of one, may be the rest of a value: `-p my shelter pets list`.
  const restOfValue = excess || (unknownCommand && suggested.length === 0);
  const unquoted = restOfValue ? unquotedValueError(failedIn, argv) : undefined;
  if (unquoted !== undefined) return unquoted;
  if (excess) return new UsageError(excessMessage(failedIn), help);
  if (suggested.length === 0) return new UsageError(message!, help);
  const oneOf = suggested.length > 1 ? 'one of ' : '';
  return new UsageError(`${message} (did you mean ${oneOf}${suggested.map((name) => `'${name}'`).join(', ')}?)`, help);
}

/** `-limit` for `--limit`: a long flag typed with one dash, for which commander suggests nothing. */
function oneDash(message: string, failedIn: Command): string[] {
  const typed = /^unknown option '(-[^-][^'=]+)'$/.exec(message)?.[1];
  return typed !== undefined && findOption(failedIn, `-${typed}`) !== undefined ? [`-${typed}`] : [];
}

/** Where parsing failed, or an unknown command's one suggestion and the words after it: `pet list` -> `pets list`. */
function closestCommand(failedIn: Command, code: string, suggested: string[]): Command {
  let command = code === 'commander.unknownCommand' && suggested.length === 1 ? findSubcommand(failedIn, suggested[0]!) : undefined;
  if (command === undefined) return failedIn;
  // commander's args at this point: the unknown word, then the rest of the line.
  for (const word of failedIn.args.slice(1)) {
    const sub = findSubcommand(command, word);
    if (sub === undefined) break;
    command = sub;
  }
  return command;
}

function commandPath(command: Command): string {
  return command.parent === null ? command.name() : `${commandPath(command.parent)} ${command.name()}`;
}

/** Too many arguments: what the command takes, and the words commander found no place for. */
function excessMessage(command: Command): string {
  const expected = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const takes = expected.length === 0 ? 'takes no arguments' : `takes ${expected.length} argument${expected.length === 1 ? '' : 's'} (${expected.join(' ')})`;
  return `${commandPath(command)} ${takes}; unexpected ${quoteAll(command.args.slice(expected.length))}`;
}

/** Words after a flag's value where none or a command was expected: the flag with its words in quotes. */
function unquotedValueError(command: Command, argv: string[]): UsageError | undefined {
  const afterFlags = wordsAfterValues(command, argv).filter(takesQuoted);
  const [first] = afterFlags;
  if (first === undefined) return undefined;
  const message = `unexpected ${quoteAll(first.leftover)} after ${first.flag} ${first.value}`;
  return new UsageError(message, `quote a value with spaces: ${afterFlags.map(({ flag, value, leftover }) => `${flag} ${quoted([value, ...leftover].join(' '))}`).join(' ')}`);
}

type FlagValue = { flag: string; option: Option; value: string; leftover: string[] };

/** Whether the flag would take its value and the words after it, quoted: `--limit "5 6"` or `--status "sold x"` it
 * refuses, and the words are then left over, as the command says. */
function takesQuoted({ option, value, leftover }: FlagValue): boolean {
  try {
    option.parseArg?.([value, ...leftover].join(' '), undefined);
    return true;
  } catch {
    return false;
  }
}

/** The words past the command's arguments after a flag's value: commander keeps no order of options beside operands. */
function wordsAfterValues(command: Command, argv: string[]): FlagValue[] {
  const afterFlags: FlagValue[] = [];
  let at = command;
  while (at.parent !== null) at = at.parent;
  let operands = 0;
  let last: FlagValue | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-') && word.length > 1) {
      last = undefined;
      const equals = word.startsWith('--') ? word.indexOf('=') : -1;
      const flag = equals === -1 ? word : word.slice(0, equals);
      const option = findOption(at, flag);
      if (option === undefined || !takesValue(option)) continue;
      if (equals !== -1) last = { flag, option, value: word.slice(equals + 1), leftover: [] };
      else if (i + 1 < argv.length && (option.required || !argv[i + 1]!.startsWith('-'))) last = { flag, option, value: argv[++i]!, leftover: [] };
      continue;
    }
    const sub = findSubcommand(at, word);
    if (sub !== undefined || (at === command && operands++ < command.registeredArguments.length)) {
      at = sub ?? at;
      last = undefined;
    } else if (last !== undefined) {
      if (last.leftover.length === 0) afterFlags.push(last);
      last.leftover.push(word);
    }
  }
  return afterFlags;
}

/** As a shell would take it back: double quotes, or single ones when the text holds what double quotes expand. */
function quoted(text: string): string {
  return /["$`\\!]/.test(text) && !text.includes("'") ? `'${text}'` : JSON.stringify(text);
}

function quoteAll(words: string[]): string {
  return words.map((word) => `"${word}"`).join(' ');
}
