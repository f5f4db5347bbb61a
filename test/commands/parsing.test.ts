import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { buildProgram, globalOptions } from '../../src/commands/root';
import { type Context, createContext } from '../../src/context';
import type { GlobalOptions } from '../../src/globals';
import { PACKAGE_VERSION, tempDir } from '../helpers/cli';
import { fakeIo, globalsWith, runMain } from '../helpers/terminal';

/** Seam 1: argv → what a command asks of the endpoint functions (spies), and nothing asked when a flag is refused. */

const api = vi.hoisted(() => ({
  listPets: vi.fn(async () => ({ pets: [], response: { status: 200, url: '', body: [], rate: {}, header: () => undefined } })),
  createPet: vi.fn(async (_http: unknown, newPet: Record<string, unknown>) => ({ id: 13, ...newPet })),
  getPet: vi.fn(async (_http: unknown, petId: number | bigint) => ({ id: petId, name: 'Rex', categoryId: 1 })),
}));
vi.mock('../../src/api/endpoints/pets', () => api);

/** Stands in for the HTTP core: the spies above never use it. */
const FAKE_HTTP = { fake: 'http' };

beforeEach(() => {
  vi.clearAllMocks();
});

/** Parses argv with the real command tree; the Context is real except for its HTTP core. */
async function parse(argv: string[], env: Record<string, string> = {}) {
  const configDir = tempDir();
  const io = fakeIo();
  let ctx: Context | undefined;
  const program = buildProgram(
    async (run) => {
      ctx = createContext(globalOptions(program), { io, env: { PETCTL_CONFIG_DIR: configDir, ...env }, signal: new AbortController().signal });
      ctx.api = async () => ({ http: FAKE_HTTP, target: {} }) as unknown as Awaited<ReturnType<Context['api']>>;
      await run(ctx);
    },
    { writeOut: (text) => io.stdout.write(text) },
  );
  await program.parseAsync(argv, { from: 'user' });
  return { globals: ctx?.globals, stdout: io.stdout.text(), stderr: io.stderr.text(), configDir };
}

describe('pets flags → options', () => {
  const id = expect.any(Function);
  it.for<[string[], keyof typeof api, unknown[]]>([
    // pets list with no flags leaves limit and status to the server
    [['pets', 'list'], 'listPets', [{ limit: undefined, status: undefined }]],
    [['pets', 'list', '--limit', '5', '--status', 'sold'], 'listPets', [{ limit: 5, status: 'sold' }]],
    [['pets', 'add', '--name', 'Rex, "the" dog', '--category-id', '9007199254740993', '--status', 'pending'], 'createPet', [{ name: 'Rex, "the" dog', categoryId: 9007199254740993n, status: 'pending' }]],
    // pets add: a small category id stays a number; no --status sends none
    [['pets', 'add', '--category-id', '-7', '--name', 'Kit'], 'createPet', [{ name: 'Kit', categoryId: -7, status: undefined }]],
    // pets get <petId> takes an int64 id: a number while it is safe
    [['pets', 'get', '9223372036854775807'], 'getPet', [9223372036854775807n, id, undefined]],
    [['pets', 'get', '42'], 'getPet', [42, id, undefined]],
    // --cache <duration> on pets list and pets get, in ms
    [['pets', 'list', '--cache', '30s'], 'listPets', [{ limit: undefined, status: undefined, cacheForMs: 30_000 }]],
    [['pets', 'get', '42', '--cache', '5m'], 'getPet', [42, id, 300_000]],
  ])('%j asks %s for %o', async ([argv, endpoint, sent]) => {
    await parse([...argv]);
    expect(api[endpoint]).toHaveBeenCalledExactlyOnceWith(FAKE_HTTP, ...sent);
  });

  it.for([['Available', 'available'], ['SOLD', 'sold'], [' pending ', 'pending']])('--status %j is sent as %s, on list and add', async ([typed, sent]) => {
    await parse(['pets', 'list', '--status', typed!]);
    expect(api.listPets).toHaveBeenCalledExactlyOnceWith(FAKE_HTTP, { limit: undefined, status: sent });
    await parse(['pets', 'add', '--name', 'Kit', '--category-id', '1', `--status=${typed!}`]);
    expect(api.createPet).toHaveBeenCalledExactlyOnceWith(FAKE_HTTP, { name: 'Kit', categoryId: 1, status: sent });
  });
});

it.for<[string[], Partial<GlobalOptions>]>([
  [[], {}],
  [['-o', 'csv'], { output: 'csv' }],
  [['--output=ndjson'], { output: 'ndjson' }],
  [['--json'], { output: 'json' }],
  [['-o', 'csv', '--json'], { output: 'json' }],
  [['--json', '-o', 'csv'], { output: 'json' }],
  [['-p', 'staging'], { profile: 'staging' }],
  [['--base-url', 'https://api.example.org/v1'], { baseUrl: 'https://api.example.org/v1' }],
  [['--timeout', '2.5'], { timeoutMs: 2500 }],
  [['--retries', '0'], { retries: 0 }],
  [['--max-wait', '0'], { maxWaitMs: 0 }],
  [['--max-wait', '90'], { maxWaitMs: 90_000 }],
  [['-v'], { verbose: true }],
  [['--verbose', '--quiet'], { verbose: true, quiet: true }],
  [['-q'], { quiet: true }],
  [['--no-color'], { color: false }],
])('global flags → GlobalOptions: %j', async ([flags, expected]) => {
  // Before the command and after it: both are accepted.
  const before = await parse([...flags, 'pets', 'list']);
  expect(before.globals).toEqual(globalsWith(expected));
  const after = await parse(['pets', 'list', ...flags]);
  expect(after.globals).toEqual(globalsWith(expected));
});

// The global --base-url has the same name; commander hands it to the program wherever it appears.
it.for([
  ['profile', 'add', 'production', '--base-url', 'https://api.example.org/v1'],
  ['profile', 'add', 'production', '--base-url=https://api.example.org/v1'],
  ['profile', 'add', '--base-url', 'https://api.example.org/v1', 'production'],
  ['--base-url', 'https://api.example.org/v1', 'profile', 'add', 'production'],
])('profile add --base-url: %j stores the profile', async (argv) => {
  const { configDir, stderr } = await parse(argv);
  expect(JSON.parse(fs.readFileSync(path.join(configDir, 'config.json'), 'utf8'))).toEqual({
    activeProfile: 'production',
    profiles: { production: { baseUrl: 'https://api.example.org/v1' } },
  });
  expect(stderr).toContain('Profile "production" added');
});

describe('refused flags: exit 2, a message naming the flag and the allowed values, nothing asked of the API', () => {
  it.for<[string[], string[]]>([
    // A negative value is the flag's, not an option of its own.
    [['pets', 'list', '--limit', '-1'], ['--limit', 'from 1 to 100']],
    [['pets', 'add', '--name', 'Rex', '--category-id', '0x10'], ['--category-id must be a whole number, not "0x10"']],
    [['pets', 'add', '--name', 'Rex', '--category-id', ' 1'], ['--category-id must be a whole number, not " 1"']],
    [['profile', 'add', 'production'], ["required option '--base-url <url>' not specified (usage_error)"]],
    [['pets', 'add', '--name', '', '--category-id', '1'], ['--name must not be empty, not ""']],
    [['pets', 'get', '1.0'], ['petId must be a whole number, not "1.0"']],
    [['pets', 'get', '1', '2'], ['petctl pets get takes 1 argument (<petId>); unexpected "2"']],
    [['--retries', '1.5', 'pets', 'list'], ['--retries', 'from 0 to 100']],
    [['sandbox', '--port', '65536'], ['--port', 'from 0 to 65535']],
    [['sandbox', '--minute-ms', '50'], ['--minute-ms', '100 or more']],
    // An empty host would bind every interface.
    [['sandbox', '--host', ''], ['--host must be an address or a host name, e.g. 127.0.0.1 or 0.0.0.0, not ""']],
    [['sandbox', '--max-animals', 'many'], ['--max-animals must be a whole number of animals from 1 to 999999999999999, not "many"']],
    // A whole number too long to be one is told the largest allowed, not that it must be a whole number.
    [['pets', 'add', '--file', 'x.csv', '--reserve', '9999999999'], ['--reserve must be a whole number of requests from 0 to 999999999, not "9999999999"']],
    [['pets', 'list', '--profile'], ['--profile', 'argument missing']],
    [['pets', 'add', '--name', ' ', '--category-id', '1'], ['--name must not be empty, not " "']],
    [['pets', 'get'], ['petId']],
    // Longer than a Node timer can hold: refused before any timer is set.
    [['--max-wait', '2147484', 'pets', 'list'], ['--max-wait must be at most 2147483 seconds']],
    [['pets', 'list', '--cache', '25d'], ['--cache must be at most 2147483s']],
    [['api', '--paginate', '/pets', '--input', '-'], ['--paginate sends GETs, which carry no body']],
    [['api', '--paginate', '/pets', '-i'], ["-i shows one answer's head"]],
    [['api', '--paginate', '/pets', '-o', 'csv'], ['--paginate prints the items as JSON']],
    // pets add --file: the flags that go with it, checked before the file is opened.
    [['pets', 'add', '--file', 'x.csv', '--category-id', '1', '--status', 'sold'], ['--file cannot be used with --category-id, --status']],
    [['pets', 'add', '--file', 'x.csv', '--format', 'xml'], ['--format must be one of json, ndjson, csv, not "xml"']],
    [['pets', 'add', '--file', 'x.csv', '--concurrency', '257'], ['--concurrency must be auto or a whole number from 1 to 256, not "257"']],
    [['pets', 'add', '--dry-run'], ['--dry-run needs --file']],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--retry-unknown'], ['--retry-unknown needs --file']],
    [['pets', 'add', '--file', 'x.csv', '--query', 'length(@)'], ['--query does not apply to --file']],
    [['pets', 'add', '--file', 'x.csv', '--encoding', 'ebcdic'], ['--encoding must be one of utf-8, utf-16le, utf-16be, windows-1252, latin1, iso-8859-1, iso-8859-15, windows-1250, windows-1251, macintosh, not "ebcdic"']],
    [['pets', 'add', '--file', 'x.csv', '--delimiter', ';;'], ['--delimiter must be one character other than a quote or a line break, or tab, not ";;"']],
    [['pets', 'add', '--file', 'x.csv', '--delimiter', '"'], ['--delimiter must be one character other than a quote or a line break, or tab, not ']],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--encoding', 'utf-8'], ['--encoding needs --file']],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--delimiter', ';'], ['--delimiter needs --file']],
    [['pets', 'add', '--file', 'x.csv', '--format', 'ndjson', '--delimiter', ';'], ['--delimiter applies to CSV, not --format ndjson']],
    [['pets', 'add', '--file', 'x.csv', '--column', 'Category'], ['--column must be <field>=<header>, such as categoryId="Category Id", not "Category"']],
    [['pets', 'add', '--file', 'x.csv', '--column', 'breed=Cat'], ['--column must be <field>=<header>, the field one of name, categoryId, status, not "breed=Cat"']],
    [['pets', 'add', '--file', 'x.csv', '--column', 'categoryId=Cat', '--column', 'category_id=Name'], ['--column must give each field once (categoryId twice), not "category_id=Name"']],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--column', 'name=Name'], ['--column needs --file']],
    [['pets', 'add', '--file', 'x.csv', '--column', 'categoryId=Cat', '--id-column', 'cat'], ['--id-column cat names a field that is sent (categoryId)']],
    [['pets', 'add', '--file', 'x.csv', '--journal', ''], ['--journal needs a path']],
    [['api', '-X', 'POST', '/pets', '-F', 'name=Rex', '--cache', '1m'], ['--cache applies to GET requests, not POST']],
    [['pets', 'list', '--cache', 'soon'], ['--cache must be a duration such as 30s, 5m, 1h30m or 1d, not "soon"']],
  ])('%j', async ([argv, names]) => {
    const result = await runMain(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: .* \(usage_error\)\n/);
    for (const name of names) expect(result.stderr).toContain(name);
    expect(api.listPets).not.toHaveBeenCalled();
    expect(api.createPet).not.toHaveBeenCalled();
    expect(api.getPet).not.toHaveBeenCalled();
  });

  const RANGE = 'must be a whole number from -9223372036854775808 to 9223372036854775807';
  const usage = (message: string, hint: string) => `error: ${message} (usage_error)\nhint: ${hint}\n`;
  it.for<[string[], string | ReturnType<typeof expect.stringMatching>]>([
    [['pets', 'add', '--name', 'Rex', '--category-id', 'cat'], usage('--category-id must be a whole number, not "cat"', 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '9223372036854775808'], usage(`--category-id ${RANGE}, not "9223372036854775808"`, 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '--status', 'adopted'], usage('--status must be one of available, pending, sold, not "adopted"', 'see petctl pets add --help')],
    [['pets', 'list', '--limit', 'ten'], usage('--limit must be a whole number from 1 to 100, not "ten"', 'see petctl pets list --help')],
    [['pets', 'list', '--status', 'Availble'], usage('--status must be one of available, pending, sold, not "Availble"', 'see petctl pets list --help')],
    [['pets', 'get', '-9223372036854775809'], usage(`petId ${RANGE}, not "-9223372036854775809"`, 'see petctl pets get --help')],
    [['-o', 'yaml', 'pets', 'list'], usage('--output must be one of table, json, ndjson, csv, not "yaml"', 'see petctl --help')],
    // A global flag's bad value comes before what follows it: --version, a flag's missing value.
    [['--timeout', '0', '--version'], usage('--timeout must be a number of seconds greater than 0, not "0"', 'see petctl --help')],
    [['--timeout', '0', '-o'], usage('--timeout must be a number of seconds greater than 0, not "0"', 'see petctl --help')],
    [['--timeout', 'soon', 'pets', 'list'], usage('--timeout must be a number of seconds greater than 0, not "soon"', 'see petctl --help')],
    // Words left over after a flag's value: the hint quotes them with it.
    [['pets', 'add', '--name', 'Mr', 'Whiskers', '--category-id', '1'], usage('unexpected "Whiskers" after --name Mr', 'quote a value with spaces: --name "Mr Whiskers"')],
    [['pets', 'add', '--category-id', '1', '--name=Mr', 'Big', 'Whiskers'], usage('unexpected "Big" "Whiskers" after --name Mr', 'quote a value with spaces: --name "Mr Big Whiskers"')],
    [['pets', 'add', '--name', 'Sir', 'Paws', '--category-id', '1', '-p', 'my', 'shelter'], usage('unexpected "Paws" after --name Sir', 'quote a value with spaces: --name "Sir Paws" -p "my shelter"')],
    [['-p', 'my', 'shelter', 'pets', 'list', '--status', 'sold'], usage('unexpected "shelter" after -p my', 'quote a value with spaces: -p "my shelter"')],
    // Unless the flag would refuse the quoted value: then the words are left over, as the command says.
    [['pets', 'list', '--status', 'available', 'sold'], usage('petctl pets list takes no arguments; unexpected "sold"', 'see petctl pets list --help')],
    [['pets', 'add', '--name', 'Rex', '--category-id', '1', '2'], usage('petctl pets add takes no arguments; unexpected "2"', 'see petctl pets add --help')],
    [['pets', 'add', '--name', 'Tom', '"the', 'cat"', '--category-id', '1'], usage('unexpected ""the" "cat"" after --name Tom', `quote a value with spaces: --name 'Tom "the cat"'`)],
    // With no flag value before them, the words are named against what the command takes.
    [['pets', 'list', 'available'], usage('petctl pets list takes no arguments; unexpected "available"', 'see petctl pets list --help')],
    [['pets', 'list', '--all', 'sold', 'pending'], usage('petctl pets list takes no arguments; unexpected "sold" "pending"', 'see petctl pets list --help')],
    [['pets', 'list', '--', 'a', 'b'], usage('petctl pets list takes no arguments; unexpected "a" "b"', 'see petctl pets list --help')],
    [['-p', 'prod', 'pet', 'list'], usage("unknown command 'pet' (did you mean 'pets'?)", 'see petctl pets list --help')],
    // An unknown command: the suggestion in the same line, and the hint names the closest help.
    [['pets', 'lst'], usage("unknown command 'lst' (did you mean 'list'?)", 'see petctl pets list --help')],
    // Without a suggestion, the help of the command where parsing failed.
    [['adopt'], usage("unknown command 'adopt'", 'see petctl --help')],
    // After `--`, a word like a flag is an unknown command, and suggests none (commander's would be '--lp').
    [['--', '--help'], usage("unknown command '--help'", 'see petctl --help')],
    [['profile', 'shw'], expect.stringMatching(/\nhint: see petctl profile show --help\n$/)],
    // An unknown option names the subcommand's help.
    [['pets', 'list', '--limt', '5'], usage("unknown option '--limt' (did you mean '--limit'?)", 'see petctl pets list --help')],
    // A long flag typed with one dash, which commander suggests nothing for.
    [['pets', 'list', '-limit', '5'], usage("unknown option '-limit' (did you mean '--limit'?)", 'see petctl pets list --help')],
    // An argument error speaks the user's terms.
    [['pets', 'get', 'abc'], usage('petId must be a whole number, not "abc"', 'see petctl pets get --help')],
    // A missing pets add flag off a terminal names pets add's help, and prompts for nothing.
    [['pets', 'add', '--name', 'Rex'], usage("required option '--category-id <int64>' not specified", 'see petctl pets add --help')],
    [['pets', 'add', '--category-id', '1'], usage("required option '--name <name>' not specified", 'see petctl pets add --help')],
  ])('%j: the value as typed, and the help to read', async ([argv, stderr]) => {
    expect(await runMain(argv)).toEqual({ code: 2, stdout: '', stderr });
    expect(api.createPet).not.toHaveBeenCalled();
  });

  it.for<[string[], string]>([
    [['pets', 'add', '--name', 'Rex', '--category-id', 'cat', '-o', 'json'], '--category-id must be a whole number, not "cat"'],
    [['--timeout', '0', '-o', 'json', 'pets', 'list'], '--timeout must be a number of seconds greater than 0, not "0"'],
    [['--max-wait', 'x', '--retries', '101', 'pets', 'list', '--json'], '--max-wait must be a number of seconds, 0 or more, not "x"'],
    [['pets', 'add', '--name', 'Mr', 'Whiskers', '--category-id', '1', '-o', 'json'], 'unexpected "Whiskers" after --name Mr'],
    // Its message has no newline.
    [['-o', 'json', 'pet', 'list'], "unknown command 'pet' (did you mean 'pets'?)"],
    // Each way a refusal is made: commander's own, a flag's check before the run, the run's.
    [['-o', 'json', 'pets', 'add', '--name', 'Rex'], "required option '--category-id <int64>' not specified"],
    [
      ['-o', 'json', '--timeout', '3000000', 'pets', 'list'],
      '--timeout must be at most 2147483 seconds (24 days), the longest a timer can wait, not "3000000"',
    ],
    [['-o', 'json', 'api', '--paginate', '/pets', '-X', 'POST'], '--paginate follows the pages of a GET, not of -X POST'],
    [['-o', 'json', 'pets', 'add', '--file', 'x.csv', '--name', 'Rex'], '--file cannot be used with --name'],
    [['-o', 'json', 'pets', 'list', '--all', '--cache', '1m'], "option '--cache <duration>' cannot be used with option '--all'"],
  ])('%j: one JSON line, the first refusal, nothing asked of the API', async ([argv, message]) => {
    expect(await runMain(argv)).toEqual({ code: 2, stdout: '', stderr: `${JSON.stringify({ code: 'usage_error', message, status: 0 })}\n` });
    for (const endpoint of [api.listPets, api.createPet, api.getPet]) expect(endpoint).not.toHaveBeenCalled();
  });
});

// The pages themselves, at every width and through the shim: test/package/help-pages.test.ts, test/e2e/help.test.ts.
describe('help, version and unknown commands', () => {
  it('petctl alone prints the help, exit 0, as --help does; sandbox --help hides --minute-ms', async () => {
    const help = await runMain(['--help']);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: petctl'), stderr: '' });
    expect(await runMain([])).toEqual(help);
    const list = await runMain(['pets', 'list', '--help']);
    expect(list.stdout).toMatch(/--limit <n> +at most this many animals, 1-100 \(server default\s+20\)/);
    const sandbox = await runMain(['sandbox', '--help']);
    expect(sandbox.stdout).toContain('--port <port>');
    expect(sandbox.stdout).not.toContain('--minute-ms');
  });

  it('help and version are commands too: help [command…] as --help, version as --version', async () => {
    expect(await runMain(['help', 'pets', 'list'])).toEqual(await runMain(['pets', 'list', '--help']));
    for (const argv of [['--version'], ['version']]) expect(await runMain(argv)).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });
});
