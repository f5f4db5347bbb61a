import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { GUIDE_TOPICS } from '../../src/commands/help';
import { BIN, NODE, cleanEnv, expectCleanError, runCli, tempDir } from '../helpers/cli';

/** The completion scripts in real shells, installed as the README says. A missing shell skips, or fails under CI. */

const ZSH_CAPTURE = fileURLToPath(new URL('../helpers/zsh-capture.zsh', import.meta.url));
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const installed = (shell: string) => spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;

let root: string;
let binDir: string;
let configDir: string;

beforeAll(async () => {
  root = tempDir('petctl-completion-');
  binDir = path.join(root, 'bin');
  configDir = path.join(root, 'config');
  fs.mkdirSync(binDir);
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  fs.writeFileSync(path.join(binDir, 'petctl'), `#!/bin/sh\nexec ${quote(NODE)} ${quote(BIN)} "$@"\n`, { mode: 0o755 });
  const added = await runCli(['profile', 'add', 'staging', '--base-url', 'https://staging.example.org/v1'], { env: { PETCTL_CONFIG_DIR: configDir } });
  expect(added.code, added.stderr).toBe(0);
});

function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  return cleanEnv({ PATH: `${binDir}${path.delimiter}${process.env.PATH}`, HOME: home, XDG_DATA_HOME: path.join(home, 'data'), PETCTL_CONFIG_DIR: configDir, ...extra });
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: 20_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${file} failed: ${error.message}\n${stderr}`));
      resolve(stdout.split('\n').filter((line) => line !== ''));
    });
  });
}

// bash calls the function `complete -F` registered with (command, word, previous word).
const BASH_DRIVER = `
source <(petctl completion bash) || exit 3
spec=$(complete -p petctl) || exit 3
fn=\${spec#*-F }
fn=\${fn%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=\${#COMP_LINE}
COMPREPLY=()
"$fn" petctl "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"
`;

function bash(words: string[], env = shellEnv()): Promise<string[]> {
  return run('bash', ['--norc', '--noprofile', '-c', BASH_DRIVER, 'bash', 'petctl', ...words], env);
}

async function zsh(line: string, install: 'fpath' | 'source' = 'fpath', env = shellEnv()): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(root, 'zsh-'));
  const script = (await runCli(['completion', 'zsh'])).stdout;
  // The two ways the README gives: a _petctl file in $fpath, or sourcing after compinit.
  const setup =
    install === 'fpath'
      ? (fs.writeFileSync(path.join(dir, '_petctl'), script), `fpath=(${dir} $fpath)\nautoload -Uz compinit && compinit -u -D\n`)
      : 'autoload -Uz compinit && compinit -u -D\nsource <(petctl completion zsh)\n';
  fs.writeFileSync(path.join(dir, 'setup.zsh'), setup);
  return run('zsh', ['-f', ZSH_CAPTURE, path.join(dir, 'setup.zsh'), line], env);
}

async function fish(line: string, env = shellEnv()): Promise<string[]> {
  const configHome = path.join(root, 'fish-config');
  const completions = path.join(configHome, 'fish', 'completions');
  if (!fs.existsSync(path.join(completions, 'petctl.fish'))) {
    fs.mkdirSync(completions, { recursive: true });
    fs.writeFileSync(path.join(completions, 'petctl.fish'), (await runCli(['completion', 'fish'])).stdout);
  }
  const lines = await run('fish', ['-c', `complete -C ${JSON.stringify(line)}`], { ...env, XDG_CONFIG_HOME: configHome });
  return lines.map((entry) => entry.split('\t')[0]!);
}

const sorted = (values: string[]) => [...values].sort();

it.concurrent('petctl completion <shell>: an unknown or missing shell is a usage error (exit 2); --help shows how to install it; __complete is not listed', async () => {
  for (const args of [['completion', 'tcsh'], ['completion'], ['completion', 'bash', 'zsh']]) {
    const result = await runCli(args);
    expectCleanError(result, 2);
    expect(result.stderr.split('\n')[0]).toMatch(/^error: .*(shell|argument)/);
  }
  const help = await runCli(['completion', '--help']);
  for (const text of ['source <(petctl completion bash)', 'fpath', '~/.config/fish/completions/petctl.fish']) {
    expect(help.stdout).toContain(text);
  }
  expect((await runCli(['--help'])).stdout).not.toContain('__complete');
});

/** COMP_WORDS as bash splits a line: at blanks and around "=", a trailing blank starting an empty word. */
function bashWords(line: string): string[] {
  return line.replace(/^petctl /, '').replaceAll('=', ' = ').split(' ').filter((word, index, all) => word !== '' || index === all.length - 1);
}

interface ShellUnderTest {
  title: string;
  shell: string;
  complete(line: string): Promise<string[]>;
  /** What replaces `--status=p`: bash replaces only the part after "=". */
  statusEquals: string;
}

const SHELLS_UNDER_TEST: ShellUnderTest[] = [
  { title: 'bash', shell: 'bash', complete: (line) => bash(bashWords(line)), statusEquals: 'pending' },
  { title: 'zsh, from $fpath', shell: 'zsh', complete: (line) => zsh(line, 'fpath'), statusEquals: '--status=pending' },
  { title: 'zsh, sourced after compinit', shell: 'zsh', complete: (line) => zsh(line, 'source'), statusEquals: '--status=pending' },
  { title: 'fish, from its completions directory', shell: 'fish', complete: fish, statusEquals: '--status=pending' },
];

for (const { title, shell, complete, statusEquals } of SHELLS_UNDER_TEST) {
  const present = installed(shell);
  describe.runIf(present || IN_CI).concurrent(title, () => {
    it(`${shell} is installed`, () => {
      expect(present, `${shell} is missing: .ci/run installs it with apt-get`).toBe(true);
    });

    it('petctl pe<TAB>, --status <TAB>, -p <TAB>, flags, --output values, --flag=value', async () => {
      expect(await complete('petctl pe')).toEqual(['pets']);
      expect(sorted(await complete('petctl pets list --status '))).toEqual(['available', 'pending', 'sold']);
      expect(sorted(await complete('petctl -p '))).toEqual(['sandbox', 'staging']);
      expect(await complete('petctl pets list --stat')).toEqual(['--status']);
      expect(sorted(await complete('petctl -o '))).toEqual(['csv', 'json', 'ndjson', 'table']);
      expect(await complete('petctl pets list --status=p')).toEqual([statusEquals]);
    });

    it('petctl help <TAB> offers the guides and the commands; petctl help pets <TAB> the group\'s commands', async () => {
      expect(sorted(await complete('petctl help '))).toEqual(sorted([...GUIDE_TOPICS, 'pets', 'auth', 'profile', 'api', 'cache', 'completion', 'help', 'version']));
      expect(await complete('petctl help bulk')).toEqual(['bulk-import']);
      expect(sorted(await complete('petctl help pets '))).toEqual(['add', 'get', 'list']);
    });
  });
}

describe.concurrent('bash only', () => {
  it('--status=<TAB> with nothing after the "="', async () => {
    expect(await bash(['pets', 'list', '--status', '='])).toEqual(['available', 'pending', 'sold']);
  });

  it.for([
    { flag: '--data', words: ['sandbox', '--data'], file: 'pets.json' },
    { flag: 'pets add --file', words: ['pets', 'add', '--file'], file: 'intake.csv' },
  ])('$flag <TAB> completes file names', async ({ words, file }) => {
    const dir = fs.mkdtempSync(path.join(root, 'files-'));
    fs.writeFileSync(path.join(dir, file), '');
    expect(await bash([...words, `${dir}/${file.slice(0, 2)}`])).toEqual([`${dir}/${file}`]);
  });
});
