import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Argument, Command, Option } from 'commander';

/** What may follow the words typed after `petctl` (the last under the cursor), read from the commander program as
 * commander reads it. Values only completion time knows are tagged where declared; choices and paths need no tag. */
type DynamicValues = 'profiles' | 'help-topics' | 'concurrency';

const tags = new WeakMap<Option | Argument, DynamicValues>();

export function completesWith<T extends Option | Argument>(target: T, values: DynamicValues): T {
  tags.set(target, values);
  return target;
}

export type Shell = 'bash' | 'zsh' | 'fish';

/** src/completion/petctl.<shell>, which the build copies beside the bundle: hand-written (docs/completion.md says why),
 * each hands the typed words to `petctl __complete -- <words>` and shows what it prints, so it never goes stale.
 * bash: glues `--status=av` back together after bash splits it at "=", with no negative indices or bash-completion
 * helpers (macOS's bash 3.2). zsh: works autoloaded from $fpath and sourced. fish: takes "value<TAB>description". */
export function completionScript(shell: Shell): string {
  return readFileSync(path.join(__dirname, `petctl.${shell}`), 'utf8');
}

type Candidate = { value: string; description: string };

/** Words to offer, or "the shell completes a path here". */
export type Completion = { kind: 'words'; candidates: Candidate[] } | { kind: 'files' };

interface CompletionSources {
  profileNames(): Promise<string[]>;
  guideTopics: readonly string[];
}

interface Position {
  command: Command;
  operands: string[];
  /** Its value is the word under the cursor. */
  pendingOption?: Option;
  afterDoubleDash: boolean;
}

export async function completeWords(program: Command, words: readonly string[], sources: CompletionSources): Promise<Completion> {
  const current = words.at(-1) ?? '';
  const position = locate(program, words.slice(0, -1));
  if (position.pendingOption) return valuesOf(position.pendingOption, '', current, position, sources);
  if (!position.afterDoubleDash && current.startsWith('-')) {
    const equals = current.indexOf('=');
    if (current.startsWith('--') && equals > 0) {
      const option = findOption(position.command, current.slice(0, equals));
      if (option && takesValue(option)) return valuesOf(option, current.slice(0, equals + 1), current, position, sources);
      return offer([], current);
    }
    return offer(flagsOf(position.command, current.startsWith('--')), current);
  }
  const candidates: Candidate[] = [];
  if (position.operands.length === 0 && !position.afterDoubleDash) candidates.push(...commandsOf(position.command));
  const argument = argumentAt(position.command, position.operands.length);
  if (argument) {
    // An argument named file…, path… or dir…: the shell completes paths there.
    if (/^(?:file|path|dir)/i.test(argument.name())) return { kind: 'files' };
    candidates.push(...(await argumentValues(argument, position, sources)));
  }
  return offer(candidates, current);
}

/** Replays the finished words the way commander would read them. */
function locate(program: Command, done: readonly string[]): Position {
  const position: Position = { command: program, operands: [], afterDoubleDash: false };
  for (const word of done) {
    if (position.pendingOption) position.pendingOption = undefined;
    else if (position.afterDoubleDash) position.operands.push(word);
    else if (word === '--') position.afterDoubleDash = true;
    else if (word.startsWith('-') && word !== '-') position.pendingOption = optionAwaitingValue(position.command, word);
    else {
      const subcommand = position.operands.length === 0 ? findSubcommand(position.command, word) : undefined;
      if (subcommand) position.command = subcommand;
      else position.operands.push(word);
    }
  }
  return position;
}

/** The option that takes the next word as its value: `--status`, `-p`, or the last of a cluster like `-vp`. */
function optionAwaitingValue(command: Command, word: string): Option | undefined {
  if (word.startsWith('--')) {
    if (word.includes('=')) return undefined;
    const option = findOption(command, word);
    return option && takesValue(option) ? option : undefined;
  }
  // Commander reads `-pdev` as -p with the value "dev", and `-vp` as -v then -p.
  for (let i = 1; i < word.length; i++) {
    const option = findOption(command, `-${word[i]}`);
    if (option && takesValue(option)) return i === word.length - 1 ? option : undefined;
  }
  return undefined;
}

/** A flag of the command or of a command above it (global flags may follow the command). */
export function findOption(command: Command, flag: string): Option | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === flag || candidate.short === flag);
    if (option) return option;
  }
  return undefined;
}

export function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

export function findSubcommand(command: Command, name: string): Command | undefined {
  return command.commands.find((sub) => sub.name() === name);
}

export function findCommand(command: Command | undefined, words: readonly string[]): Command | undefined {
  for (const word of words) command = command && findSubcommand(command, word);
  return command;
}

function commandsOf(command: Command): Candidate[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .map((sub) => ({ value: sub.name(), description: summary(sub.description()) }));
}

function argumentAt(command: Command, index: number): Argument | undefined {
  const declared = command.registeredArguments;
  const last = declared.at(-1);
  return declared[index] ?? (last?.variadic ? last : undefined);
}

/** The command's own flags (help included), then those of the commands above it (--version only at the top). */
function flagsOf(command: Command, longOnly: boolean): Candidate[] {
  const help = command.createHelp();
  help.showGlobalOptions = true;
  const inherited = help.visibleGlobalOptions(command).filter((option) => option.long !== '--version');
  return [...help.visibleOptions(command), ...inherited].flatMap((option) =>
    [option.long, longOnly ? undefined : option.short].filter((flag) => flag !== undefined).map((value) => ({ value, description: summary(option.description) })),
  );
}

async function valuesOf(option: Option, prefix: string, current: string, position: Position, sources: CompletionSources): Promise<Completion> {
  // A value shown as <file>, <path> or <dir> (`--data <file>`, `--file <path|->`): the shell completes paths there.
  if (/[<[](?:file|path|dir)[\w.|-]*[>\]]/i.test(option.flags)) return { kind: 'files' };
  const values = await argumentValues(option, position, sources);
  return offer(values.map((candidate) => ({ ...candidate, value: `${prefix}${candidate.value}` })), current);
}

async function argumentValues(target: Argument | Option, position: Position, sources: CompletionSources): Promise<Candidate[]> {
  const kind = tags.get(target);
  if (kind === 'help-topics') return helpTopics(position, sources.guideTopics);
  const values = target.argChoices ?? (kind === 'profiles' ? await sources.profileNames() : kind === 'concurrency' ? ['auto'] : []);
  return values.map((value) => ({ value, description: '' }));
}

/** After `petctl help`: the guides and the commands (the help command's siblings), and after a group's name its
 * subcommands. A guide first: `help sandbox` prints the guide, not the command. */
function helpTopics({ command: help, operands }: Position, guides: readonly string[]): Candidate[] {
  const command = findCommand(help.parent ?? undefined, operands);
  if (command === undefined) return [];
  const guideCandidates = operands.length === 0 ? guides.map((topic) => ({ value: topic, description: 'guide' })) : [];
  return [...guideCandidates, ...commandsOf(command)];
}

function offer(candidates: Candidate[], current: string): Completion {
  return { kind: 'words', candidates: candidates.filter((candidate, i) => candidate.value.startsWith(current) && candidates.findIndex((other) => other.value === candidate.value) === i) };
}

/** Shells show one line per candidate: the first line of a description, no tabs. */
function summary(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
}

/** What `petctl __complete` prints: `value<TAB>description` lines, or `:files` (no candidate starts with ":"). */
export function renderCompletion(completion: Completion): string {
  if (completion.kind === 'files') return ':files\n';
  return completion.candidates.map((candidate) => `${candidate.value}\t${candidate.description}\n`).join('');
}
