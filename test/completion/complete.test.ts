import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { completeRun, completionRun } from '../../src/commands/completion';
import { buildProgram } from '../../src/commands/root';
import { type Completion, completeWords, completionScript, renderCompletion } from '../../src/completion/complete';
import { GUIDE_TOPICS } from '../../src/commands/help';
import { configDirWith } from '../helpers/cli';
import { fakeContext } from '../helpers/terminal';

/** What `petctl __complete -- <words>` offers from the real command tree; the shells' side: test/e2e/completion.test.ts. */

const program = () => buildProgram(async () => {}, { writeOut: () => {} });
const PROFILES = ['sandbox', 'staging', 'production'];
const TOP = ['pets', 'auth', 'profile', 'sandbox', 'api', 'cache', 'completion', 'help', 'version'];
const sources = { profileNames: async () => PROFILES, guideTopics: GUIDE_TOPICS };

async function offered(words: string[], tree = program()): Promise<string[] | 'files'> {
  const completion: Completion = await completeWords(tree, words, sources);
  return completion.kind === 'files' ? 'files' : completion.candidates.map((candidate) => candidate.value);
}

describe.concurrent('commands, flags and values', () => {
  it.for<[string, string[], string[] | 'files']>([
    ['every visible top-level command, hidden __complete left out', [''], TOP],
    ['every visible top-level command, hidden __complete left out', [], TOP],
    ['by prefix, at every level', ['p'], ['pets', 'profile']],
    ['by prefix, at every level', ['pets', ''], ['list', 'add', 'get']],
    ['by prefix, at every level', ['profile', 'r'], ['remove']],
    ['by prefix, at every level', ['x'], []],
    ['global options before the command do not hide it', ['-p', 'staging', '-o', 'json', '--json', 'pe'], ['pets']],
    ['global options before the command do not hide it', ['--timeout=5', '-vq', 'pets', 'l'], ['list']],
    ['a leaf with no arguments offers nothing but its flags', ['pets', 'list', ''], []],
    ['by prefix', ['pets', 'list', '--st'], ['--status', '--starting-token']],
    ['by prefix', ['pets', 'add', '--c'], ['--category-id', '--column', '--concurrency']],
    ['by prefix', ['--ma'], ['--max-wait']],
    ['after "--" nothing is a flag', ['pets', 'get', '--', '-'], []],
    ['--status and --output: their choices', ['pets', 'list', '--status', ''], ['available', 'pending', 'sold']],
    ['--status and --output: their choices', ['pets', 'list', '-o', 'n'], ['ndjson']],
    ['pets add --encoding: the encodings petctl reads', ['pets', 'add', '--encoding', 'win'], ['windows-1252', 'windows-1250', 'windows-1251']],
    ['--flag=value forms keep the flag in the answer', ['pets', 'list', '--status=a'], ['--status=available']],
    ['--flag=value forms keep the flag in the answer', ['--profile=st'], ['--profile=staging']],
    ['--flag=value forms keep the flag in the answer', ['--json='], []],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['-p', ''], PROFILES],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['pets', 'list', '--profile', 's'], ['sandbox', 'staging']],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['-vp', ''], PROFILES],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['profile', 'show', 'pro'], ['production']],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['profile', 'use', 'pro'], ['production']],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['profile', 'remove', 'pro'], ['production']],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['profile', 'use', 'staging', ''], []],
    ['-p/--profile and profile show|use|remove: profile names; profile add takes a new name', ['profile', 'add', ''], []],
    ['a value given in the same word (-pdev) leaves the next word to the command', ['-pstaging', 'pe'], ['pets']],
    ['a flag value is never mistaken for a command', ['-p', 'pets', ''], TOP],
    ['a flag value is never mistaken for a command', ['--base-url', 'http://127.0.0.1:1/v1', 'pets', 'g'], ['get']],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['pets', 'add', '--name', ''], []],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['sandbox', '--data', ''], 'files'],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['pets', 'add', '--file', 'a'], 'files'],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['pets', 'add', '--file=a'], 'files'],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['pets', 'add', '--journal', ''], 'files'],
    ['free-form values offer nothing; <file> values ask the shell for paths', ['pets', 'add', '--id-column', ''], []],
    ['completion <shell>: the shells', ['completion', ''], ['bash', 'zsh', 'fish']],
  ])('%s: %j', async ([, words, expected]) => {
    expect(await offered(words)).toEqual(expected);
  });

  it('commands registered later complete too: the tree is read at TAB time', async () => {
    const tree = program();
    tree.command('adopt').argument('<petId>').addOption(new Option('--method <method>').choices(['GET', 'POST']));
    expect(await offered(['a'], tree)).toEqual(['auth', 'api', 'adopt']);
    expect(await offered(['adopt', 'x', '--method', ''], tree)).toEqual(['GET', 'POST']);
  });
});

describe.concurrent('petctl help <TAB>', () => {
  it('offers every guide, then every command; a guide that is also a command (sandbox) once, as the guide help prints', async () => {
    expect(await offered(['help', ''])).toEqual([...GUIDE_TOPICS, ...TOP.filter((command) => command !== 'sandbox')]);
    expect(GUIDE_TOPICS).toContain('sandbox');
    const guide = { kind: 'words', candidates: [{ value: 'sandbox', description: 'guide' }] };
    expect(await completeWords(program(), ['help', 'sa'], sources)).toEqual(guide);
  });

  it('by prefix, after global flags, and a group\'s commands after its name', async () => {
    expect(await offered(['help', 'r'])).toEqual(['rate-limits']);
    expect(await offered(['-q', 'help', 'p'])).toEqual(['pets', 'profile']);
    expect(await offered(['help', 'pets', ''])).toEqual(['list', 'add', 'get']);
    expect(await offered(['help', 'profile', 'r'])).toEqual(['remove']);
    // After a guide, a leaf command or a word that is neither: nothing more.
    for (const words of [['help', 'bulk-import', ''], ['help', 'pets', 'add', ''], ['help', 'adopt', '']]) expect(await offered(words)).toEqual([]);
  });
});

it.concurrent('"--" offers long flags: the command\'s own, --help, then the global ones; never hidden ones or --version below the top', async () => {
  const flags = await offered(['pets', 'list', '--']);
  expect(flags.slice(0, 6)).toEqual(['--limit', '--status', '--all', '--starting-token', '--cache', '--help']);
  expect(flags).toEqual(expect.arrayContaining(['--profile', '--output', '--json', '--base-url', '--timeout', '--retries', '--max-wait', '--verbose', '--quiet', '--no-color', '--no-input', '--query']));
  expect(flags).not.toContain('--version');
  expect((flags as string[]).filter((flag) => !flag.startsWith('--'))).toEqual([]);
  expect(await offered(['sandbox', '--'])).not.toContain('--minute-ms');
  // "-" adds the short forms; the top level has --version.
  expect(await offered(['-'])).toEqual(expect.arrayContaining(['-p', '--profile', '-o', '--output', '-v', '-q', '-h', '--help', '-V', '--version']));
});

it('renderCompletion: value<TAB>description lines, or :files', () => {
  expect(renderCompletion({ kind: 'words', candidates: [{ value: 'pets', description: 'animals' }, { value: 'sold', description: '' }] })).toBe('pets\tanimals\nsold\t\n');
  expect(renderCompletion({ kind: 'words', candidates: [] })).toBe('');
  expect(renderCompletion({ kind: 'files' })).toBe(':files\n');
});

describe.concurrent('completeRun and completionRun', () => {
  it.for([
    ['a damaged config still offers the sandbox, and prints no error', '{ not json', ['profile', 'use', ''], 'sandbox\t\n'],
    [
      'a hand-edited name with white space is left out (it would break the one-per-line answer)',
      JSON.stringify({ profiles: { 'two words': { baseUrl: 'https://a.example.org/v1' }, ok: { baseUrl: 'https://b.example.org/v1' } } }),
      ['-p', ''],
      'sandbox\t\nok\t\n',
    ],
  ] as const)('%s', async ([, config, words, offered], t) => {
    const { ctx, io } = fakeContext(t, { env: { PETCTL_CONFIG_DIR: configDirWith(config) } });
    await completeRun({ words: [...words], program: program() }, ctx);
    expect(io.stdout.text()).toBe(offered);
    expect(io.stderr.text()).toBe('');
  });

  it.for(['bash', 'zsh', 'fish'] as const)('completionRun prints the script of the shell asked for: %s', async (shell, t) => {
    const { ctx, io } = fakeContext(t);
    await completionRun({ shell }, ctx);
    expect(io.stdout.text()).toBe(completionScript(shell));
    expect(io.stdout.text()).toContain('petctl __complete -- ');
  });
});
