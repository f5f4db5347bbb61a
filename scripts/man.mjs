// Man pages, made at build time from the command tree --help prints: petctl(1)
// and one page per command, petctl-pets-add(1) for `petctl pets add`. Nothing
// here is written by hand: names, synopses, options, subcommands and the
// examples after each --help come from the commander definitions in src/commands/.
import { mkdirSync, writeFileSync } from 'node:fs';

/** The program as src/commands/root.ts builds it (from the bundle), its help printed into `captured`. */
function loadProgram(buildProgram) {
  const captured = { text: '' };
  const write = (text) => void (captured.text += text);
  const program = buildProgram(async () => {}, { writeOut: write });
  return { program, captured };
}

/** roff-safe text: backslashes, and hyphens as ASCII minus (a flag typed from the page must work). */
const roff = (text) => text.replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/^([.'])/gm, '\\&$1');

const commandPath = (command) => {
  const names = [];
  for (let at = command; at; at = at.parent) names.unshift(at.name());
  return names;
};

function optionsSection(title, command, help) {
  const options = help.visibleOptions(command);
  if (options.length === 0) return [];
  return [`.SH ${title}`, ...options.flatMap((option) => ['.TP', `.B ${roff(help.optionTerm(option))}`, roff(help.optionDescription(option))])];
}

function page(command, program, captured, version) {
  const help = command.createHelp();
  const names = commandPath(command);
  const name = names.join('-');
  captured.text = '';
  command.outputHelp();
  const base = command.helpInformation();
  const after = captured.text.startsWith(base) ? captured.text.slice(base.length).replace(/^\n+|\n+$/g, '') : '';
  const subcommands = help.visibleCommands(command);
  const lines = [
    `.TH ${roff(name.toUpperCase())} 1 "" "petctl ${version}" "petctl manual"`,
    // No hyphenation: a flag or a value split across lines cannot be copied.
    '.nh',
    '.ad l',
    '.SH NAME',
    `${roff(name)} \\- ${roff(command.description())}`,
    '.SH SYNOPSIS',
    `.B ${roff(names.join(' '))}`,
    roff(command.usage()),
    ...help.visibleArguments(command).flatMap((argument) => (argument.description ? ['.TP', `.I ${roff(help.argumentTerm(argument))}`, roff(argument.description)] : [])),
    ...optionsSection('OPTIONS', command, help),
  ];
  if (subcommands.length > 0) {
    lines.push('.SH COMMANDS');
    for (const sub of subcommands) lines.push('.TP', `.B ${roff([...names, sub.name()].join(' '))} ${roff(sub.usage())}`, `${roff(sub.description())} See ${roff([...names, sub.name()].join('-'))}(1).`);
  }
  if (after !== '') lines.push('.SH NOTES', '.nf', roff(after), '.fi');
  const parent = names.length > 2 ? `${roff(names.slice(0, -1).join('-'))}(1), ` : '';
  if (command !== program) lines.push('.SH SEE ALSO', `${parent}petctl(1) for the global options every command takes, petctl help <topic> for the guides.`);
  else lines.push('.SH SEE ALSO', 'petctl help <topic> for the guides; petctl\-<command>(1) for each command.');
  return { name, text: `${lines.join('\n')}\n` };
}

/** Writes petctl.1 and petctl-<command>.1 for every visible command into `dir`; the names written. */
export async function writeManPages(dir, version, buildProgram) {
  const { program, captured } = loadProgram(buildProgram);
  mkdirSync(dir, { recursive: true });
  const written = [];
  const visit = (command) => {
    const { name, text } = page(command, program, captured, version);
    writeFileSync(new URL(`${name}.1`, dir), text);
    written.push(`${name}.1`);
    for (const sub of command.createHelp().visibleCommands(command)) visit(sub);
  };
  visit(program);
  return written;
}
