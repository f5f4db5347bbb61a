import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cliSession,
  expectCleanError,
  jsonError,
  newApiKey,
  runCli,
  setupE2e,
  tempDir,
  writeInput,
} from '../helpers/cli';

/** Nothing planted at a name petctl writes is written through, trusted or changed. "Another user": uid 65534. */

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

function snapshot(file: string) {
  const stats = fs.lstatSync(file);
  return { bytes: stats.isDirectory() ? Buffer.from(fs.readdirSync(file).join('\n')) : fs.readFileSync(file), mode: stats.mode, uid: stats.uid };
}

async function scene(t: TestContext) {
  const e2e = await setupE2e(t);
  const root = tempDir();
  const shared = path.join(root, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o777);
  const victim = path.join(root, '.bashrc');
  fs.writeFileSync(victim, 'alias ll="ls -l"\n', { mode: 0o644 });
  const rows = writeInput(shared, 'intake.csv', 'name,categoryId,status\nRex,1,available\n');
  const journal = path.join(shared, 'intake.journal');
  return { ...e2e, shared, victim, rows, journal, dataFile: path.join(shared, 'pets.json') };
}

type SceneOf = Awaited<ReturnType<typeof scene>>;

/** Each name petctl writes, and a command that would write it. */
const NAMES: Array<{ name: string; at: (s: SceneOf) => string; directory?: boolean; run: (s: SceneOf) => Promise<CliResult> }> = [
  { name: 'config.json', at: (s) => path.join(s.configDir, 'config.json'), run: (s) => s.petctl(['pets', 'list']) },
  { name: 'state.json', at: (s) => path.join(s.configDir, 'state.json'), run: (s) => s.petctl(['pets', 'list']) },
  { name: 'config.json.lock', at: (s) => path.join(s.configDir, 'config.json.lock'), directory: true, run: (s) => s.petctl(['profile', 'add', 'qa', '--base-url', s.server.baseUrl]) },
  { name: 'state.json.lock', at: (s) => path.join(s.configDir, 'state.json.lock'), directory: true, run: (s) => s.petctl(['pets', 'list']) },
  { name: 'the default journal folder', at: (s) => path.join(s.configDir, 'imports'), directory: true, run: (s) => s.petctl(['pets', 'add', '--file', s.rows]) },
  { name: 'the journal', at: (s) => s.journal, run: (s) => s.petctl(['pets', 'add', '--file', s.rows, '--journal', s.journal]) },
  { name: '<journal>.spare', at: (s) => `${s.journal}.spare`, run: (s) => s.petctl(['pets', 'add', '--file', s.rows, '--journal', s.journal]) },
  { name: "the built-in sandbox's data file", at: (s) => path.join(s.configDir, 'sandbox-data.json'), run: builtIn },
  { name: "the built-in sandbox's limits file", at: (s) => path.join(s.configDir, 'sandbox-data.json.limits.json'), run: builtIn },
  { name: 'petctl sandbox --data', at: (s) => s.dataFile, run: (s) => sandboxOn(s) },
  { name: "petctl sandbox --data's limits file", at: (s) => `${s.dataFile}.limits.json`, run: (s) => sandboxOn(s) },
];

function builtIn(s: SceneOf): Promise<CliResult> {
  const env = { PETCTL_CONFIG_DIR: s.configDir, PETCTL_SANDBOX_LOG: path.join(s.shared, 'requests.log') };
  return runCli(['pets', 'list'], { env });
}

function sandboxOn(s: SceneOf): Promise<CliResult> {
  return runCli(['sandbox', '--port', '0', '--data', s.dataFile], { env: { PETCTL_CONFIG_DIR: s.configDir }, timeoutMs: 10_000 });
}

function expectRefused(result: CliResult, s: SceneOf, file: string, problem: RegExp): void {
  expectCleanError(result, 1);
  expect(result.stderr).toContain(`error: refusing to use ${file}: `);
  expect(result.stderr).toMatch(problem);
  expect(result.stderr).toMatch(/\(unsafe_file\)\nhint: /);
  expect(result.stderr).not.toContain('listening on');
  expect(s.server.requests).toEqual([]);
  expect(fs.existsSync(path.join(s.shared, 'requests.log'))).toBe(false);
}

const PLANTS = [
  {
    title: 'a symlink planted at a name petctl writes',
    skip: process.platform === 'win32',
    problem: /it is a symbolic link/,
    plant: (s: SceneOf, at: string) => {
      fs.symlinkSync(s.victim, at);
      return () => [snapshot(s.victim), fs.readlinkSync(at)];
    },
  },
  {
    title: 'a file or folder another user made at a name petctl writes (mode 0666 / 0777)',
    skip: !isRoot,
    problem: new RegExp(`it is owned by another user \\(uid ${NOBODY}\\)`),
    plant: (_s: SceneOf, at: string, entry: (typeof NAMES)[number]) => {
      if (entry.directory) fs.mkdirSync(at, { mode: 0o777 });
      else fs.writeFileSync(at, entry.name === 'config.json' ? '{"profiles":{}}\n' : '');
      fs.chmodSync(at, entry.directory ? 0o777 : 0o666);
      fs.chownSync(at, NOBODY, NOBODY);
      return () => snapshot(at);
    },
  },
];

for (const { title, skip, problem, plant } of PLANTS) {
  describe.skipIf(skip)(title, () => {
    for (const entry of NAMES) {
      it(`${entry.name}: left as it is; unsafe_file, nothing sent`, async (t) => {
        const s = await scene(t);
        fs.mkdirSync(s.configDir, { recursive: true, mode: 0o700 });
        const at = entry.at(s);
        fs.mkdirSync(path.dirname(at), { recursive: true });
        const unchanged = plant(s, at, entry);
        const before = unchanged();

        const result = await entry.run(s);

        expectRefused(result, s, at, problem);
        expect(unchanged()).toEqual(before);
      });
    }
  });
}

describe.skipIf(process.platform === 'win32')('files of the user that are not petctl\'s to write', () => {
  for (const { what, text } of [
    { what: 'a text file of one line without a newline', text: 'call the vet on Monday' },
    { what: 'a text file of several lines', text: 'line one\nline two\n' },
  ]) {
    it(`--journal naming ${what}: never truncated or written into`, async (t) => {
      const s = await scene(t);
      const notes = path.join(s.shared, 'notes.txt');
      fs.writeFileSync(notes, text, { mode: 0o644 });
      const before = snapshot(notes);

      const result = await s.petctl(['pets', 'add', '--file', s.rows, '--journal', notes]);

      expectRefused(result, s, notes, /it is not a petctl import journal/);
      expect(result.stderr).toContain('hint: choose another --journal path');
      expect(snapshot(notes)).toEqual(before);
    });
  }

  it("the user's own journal that others can write (0666): refused, not trusted; chmod go-w is the hint", async (t) => {
    const s = await scene(t);
    fs.writeFileSync(s.journal, '{"petctlImportJournal":2,"target":"0"}\n');
    fs.chmodSync(s.journal, 0o666);
    const before = snapshot(s.journal);

    const result = await s.petctl(['pets', 'add', '--file', s.rows, '--journal', s.journal]);

    expectRefused(result, s, s.journal, /other users can write to it \(mode 0666\)/);
    expect(result.stderr).toContain(`hint: if its content is yours, run chmod go-w ${s.journal}`);
    expect(snapshot(s.journal)).toEqual(before);
  });
});

describe.skipIf(!isRoot)("a config directory of another user's", () => {
  it.for([
    { what: 'is refused even with PETCTL_API_KEY set: the key goes nowhere, not even to the base URL that user planted', whole: true },
    { what: "the user's own directory holding another user's config.json: refused the same way", whole: false },
  ])('$what', async ({ whole }, t) => {
    const s = await scene(t);
    fs.mkdirSync(s.configDir, { recursive: true, mode: 0o700 });
    const config = path.join(s.configDir, 'config.json');
    const planted = { activeProfile: 'work', profiles: { work: { baseUrl: s.server.baseUrl } } };
    fs.writeFileSync(config, JSON.stringify(planted), { mode: 0o644 });
    for (const file of whole ? [s.configDir, config] : [config]) fs.chownSync(file, NOBODY, NOBODY);
    if (whole) fs.chmodSync(s.configDir, 0o755);
    const before = snapshot(config);

    const result = await runCli(['pets', 'list'], { env: { PETCTL_CONFIG_DIR: s.configDir, PETCTL_API_KEY: s.key }, secrets: [s.key] });

    expectRefused(result, s, whole ? s.configDir : config, /it is owned by another user \(uid 65534\)/);
    expect(snapshot(config)).toEqual(before);
    if (whole) expect(fs.statSync(s.configDir).mode & 0o777).toBe(0o755);
  });
});

describe('a config directory petctl cannot use: file_unusable, exit 1, naming the path and the reason', () => {
  it('a path through a regular file', async () => {
    const file = path.join(tempDir(), 'not-a-directory');
    fs.writeFileSync(file, '');
    const configDir = path.join(file, 'petctl');

    const result = await runCli(['-o', 'json', 'profile', 'list'], { env: { PETCTL_CONFIG_DIR: configDir } });

    expectCleanError(result, 1);
    expect(jsonError(result)).toEqual({ code: 'file_unusable', message: `cannot use ${configDir}: a part of its path is not a directory`, status: 0 });
  });

  it.skipIf(isRoot)('one the user may not write (0500): nothing changed', async () => {
    const configDir = tempDir();
    fs.chmodSync(configDir, 0o500);

    const result = await runCli(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1'], { env: { PETCTL_CONFIG_DIR: configDir } });

    expectCleanError(result, 1);
    expect(result.stderr).toBe(`error: cannot create ${path.join(configDir, 'config.json.lock')}: permission denied (file_unusable)\n`);
    expect(fs.readdirSync(configDir)).toEqual([]);
  });
});

it.skipIf(process.platform === 'darwin' || process.platform === 'win32')(
  'a relative XDG_CONFIG_HOME or XDG_CACHE_HOME counts as unset: files go under HOME, never into the directory petctl runs in',
  async () => {
    const [home, cwd] = [tempDir(), tempDir()];
    const env = { HOME: home, XDG_CONFIG_HOME: 'config', XDG_CACHE_HOME: 'cache' };

    const added = await runCli(['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1'], { env, cwd });
    const listed = await runCli(['-p', 'sandbox', 'pets', 'list', '--cache', '1m'], { env, cwd });

    expect([added.code, listed.code], added.stderr + listed.stderr).toEqual([0, 0]);
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect(fs.existsSync(path.join(home, '.config', 'petctl', 'config.json'))).toBe(true);
    expect(fs.readdirSync(path.join(home, '.cache', 'petctl', 'responses'))).toHaveLength(1);
  },
);

it.concurrent.for([
  { what: 'JSON cut short', text: '{"activeProfile":"prod","profiles":{"prod":{"baseUrl":"https://api.example.org/v1","apiKey":"sk_live_0123456789' },
  { what: 'not an object', text: '["prod"]\n' },
])('a damaged config.json: $what: every command stops with config_damaged, exit 1, naming the file; nothing changed', async ({ text }) => {
  const configDir = tempDir();
  const configFile = path.join(configDir, 'config.json');
  fs.writeFileSync(configFile, text, { mode: 0o600 });
  const petctl = cliSession({ env: { PETCTL_CONFIG_DIR: configDir }, secrets: ['sk_live_0123456789'] });
  const reason = text.startsWith('[') ? 'not a JSON object' : 'not valid JSON';
  for (const [args, input] of [
    [['pets', 'list']],
    [['profile', 'list']],
    [['profile', 'add', 'qa', '--base-url', 'https://qa.example.org/v1']],
    [['profile', 'use', 'sandbox']],
    [['auth', 'login', '--insecure-storage', '--no-verify', '--with-token'], newApiKey()],
    [['-p', 'sandbox', 'auth', 'logout']],
  ] as Array<[string[], string?]>) {
    const result = await petctl(args, { input });
    expect(result.code, args.join(' ')).toBe(1);
    expectCleanError(result);
    expect(result.stderr).toBe(
      `error: the configuration file ${configFile} is damaged (${reason}); nothing was changed (config_damaged)\n` +
        `hint: fix it by hand, or move it away to start with no profiles (mv ${configFile} ${configFile}.damaged)\n`,
    );
    expect(fs.readFileSync(configFile, 'utf8'), args.join(' ')).toBe(text);
  }
  const asJson = await petctl(['-o', 'json', 'pets', 'list']);
  expect(asJson.code).toBe(1);
  expect(jsonError(asJson)).toMatchObject({ code: 'config_damaged', status: 0 });
  expect(fs.readFileSync(configFile, 'utf8')).toBe(text);
});
