import fs from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addRun } from '../../src/commands/pets/add';
import { getRun } from '../../src/commands/pets/get';
import { listRun } from '../../src/commands/pets/list';
import { listAllRun } from '../../src/commands/pets/list-all';
import { renderPets } from '../../src/output/pets';
import type { Pet } from '../../src/schemas/pet';
import { expectPetctlHeaders, tempDir } from '../helpers/cli';
import { fakeContext, servedContext } from '../helpers/terminal';
import { json } from '../helpers/scripted-server';

const PETS: Pet[] = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Bella', categoryId: 1, status: 'pending' },
  { id: 3, name: 'Max', categoryId: 12, status: 'sold' },
  { id: 4, name: 'Nameless', categoryId: 2 },
];

const PLAIN_TABLE = [
  'ID  NAME      CATEGORY  STATUS',
  '1   Rex       1         available',
  '2   Bella     1         pending',
  '3   Max       12        sold',
  '4   Nameless  2         -',
  '',
].join('\n');

// How a table looks is output/pets.test.ts's; here the terminal's width and colour level reach it through the Context.
it.concurrent("pets list on a terminal: the table at the terminal's width and colour (no TERM: basic) or none; no animals: a stderr line", async (t) => {
  const { server, key, run } = await servedContext(t);
  const long = 'Sir Bartholomew Fluffington the Third of Puddlecombe';
  const pets: Pet[] = [{ id: 1, name: long, categoryId: 1, status: 'available' }, ...PETS.slice(1)];
  server.reply(json(200, pets), json(200, PETS), json(200, PETS), json(200, []), json(200, []));
  const { ctx, io } = run({ stdoutColumns: 40 });
  await listRun({ limit: 4 }, ctx);
  expect(server.requests[0]?.query).toEqual({ limit: '4' });
  expectPetctlHeaders(server.requests[0]!, key);
  expect(io.stdout.text()).toBe(renderPets(pets, 'table', { tty: true, level: 1, width: 40 }));
  expect(io.stderr.text()).toBe('');
  for (const options of [{ env: { NO_COLOR: '1' } }, { globals: { color: false } }]) {
    const plain = run({ stdoutColumns: 120, ...options });
    await listRun({}, plain.ctx);
    expect(plain.io.stdout.text()).toBe(PLAIN_TABLE);
  }
  // An empty list prints nothing on stdout and says so on stderr (nothing with -q).
  const tty = run({ stdoutColumns: 80 });
  await listRun({ status: 'sold' }, tty.ctx);
  expect(tty.io.stdout.text()).toBe('');
  expect(tty.io.stderr.text()).toBe('No animals found.\n');
  const quiet = run({ stdoutColumns: 80, globals: { quiet: true } });
  await listRun({}, quiet.ctx);
  expect(quiet.io.stderr.text()).toBe('');
});

describe.concurrent('pets list when the service has more (Link rel="next")', () => {
  const NEXT = { Link: '</v1/pets?limit=20&after=4>; rel="next"' };
  const HINT = 'More animals than these 4: see them all with --all, or up to 100 with --limit 100.\n';
  const ALL = 'More animals than these 4: see them all with --all.\n';
  const TTYS = { stdoutColumns: 120, stderrTTY: true };

  it.for([
    ['on a terminal (stdout and stderr) says so in one line on stderr, after the page', {}, TTYS, NEXT, HINT],
    ['at --limit 100 it names only --all, -o json too', { limit: 100 }, { ...TTYS, globals: { output: 'json' } }, NEXT, ALL],
    ['-q hides it', {}, { ...TTYS, globals: { quiet: true } }, NEXT, ''],
    ['piped stdout never gets it', {}, { stderrTTY: true }, NEXT, ''],
    ['stderr off a terminal never gets it', {}, { stdoutColumns: 120 }, NEXT, ''],
    ['no next link, no line', {}, TTYS, { Link: '</v1/pets>; rel="successor-version"' }, ''],
  ] as const)('%s', async ([, options, terminal, headers, hint], t) => {
    const { server, run } = await servedContext(t);
    server.reply(json(200, PETS, headers));
    const { ctx, io } = run(terminal);
    await listRun(options, ctx);
    expect(io.stderr.text()).toBe(hint);
    expect(io.stdout.text()).not.toBe('');
    server.verify();
  });

  // 100 animals a page without --limit; every page shown, so no hint.
  it("--all on a terminal: a status line of pages and animals, and a wait's countdown; none with -q", async (t) => {
    const { server, run } = await servedContext(t);
    const reset = String(Math.ceil(Date.now() / 1000) + 2);
    const exhausted = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset, Date: new Date().toUTCString() };
    server.reply(json(200, PETS, { ...exhausted, Link: '</v1/pets?limit=100&after=4>; rel="next"' }), json(200, []), json(200, PETS), json(200, []));
    const watched = run({ stdoutColumns: 120, stderrTTY: true });
    await listAllRun({ all: true }, watched.ctx);
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/pets?limit=100', '/v1/pets?limit=100&after=4']);
    expect(watched.io.stderr.text()).not.toContain('More animals');
    const shown = watched.io.stderr.text().split('\r\x1b[K').filter(Boolean);
    expect(shown[0]).toBe('petctl: page 1, 4 animals so far');
    // The status line is cut one column short of the terminal's 80.
    expect(shown[1]).toMatch(/^petctl: page 2, 4 animals so far; rate limit reached; waiting \ds for the window/);
    expect(shown[1]?.length).toBeLessThanOrEqual(79);
    expect(shown.at(-1)).toBe('petctl: page 2, 4 animals so far');
    expect(watched.io.stderr.text().endsWith('\r\x1b[K')).toBe(true);
    expect(watched.io.stdout.text().split('\n').filter(Boolean)).toHaveLength(5);
    const quiet = run({ stderrTTY: true, globals: { quiet: true } });
    await listAllRun({ all: true }, quiet.ctx);
    expect(quiet.io.stderr.text()).toBe('');
  });
});

describe.concurrent('pets add and get', () => {
  it('pets add posts the NewPet and prints the created animal as a one-row table on a terminal; pets get prints the animal and warns on stderr that the operation is deprecated; --quiet silences the warning', async (t) => {
    const { server, run } = await servedContext(t);
    const created = { id: 13, name: 'Rex', categoryId: 1, status: 'available' };
    server.reply(json(201, created), json(200, PETS[1]!), json(200, PETS[0]!));
    const added = run({ stdoutColumns: 80, env: { NO_COLOR: '1' } });
    await addRun({ name: 'Rex', categoryId: 1, status: 'available' }, added.ctx);
    expect(added.io.stdout.text()).toBe('ID  NAME  CATEGORY  STATUS\n13  Rex   1         available\n');
    expect(server.requests[0]?.body).toBe('{"name":"Rex","categoryId":1,"status":"available"}');
    const { ctx, io } = run();
    await getRun({ petId: 2 }, ctx);
    expect(server.requests[1]).toMatchObject({ method: 'GET', path: '/v1/pets/2' });
    expect(io.stdout.text()).toBe('2\tBella\t1\tpending\n');
    // The warning's words: test/spec/getting.test.ts.
    expect(io.stderr.text()).toMatch(/^warning: GET \/pets\/\{petId\} is deprecated/);
    const quiet = run({ globals: { quiet: true } });
    await getRun({ petId: 1 }, quiet.ctx);
    expect(quiet.io.stderr.text()).toBe('');
  });

  it('the in-process sandbox through a fake context needs no base URL or key, and keeps its data in the config dir', async (t) => {
    const configDir = tempDir();
    const { ctx, io } = fakeContext(t, { env: { PETCTL_CONFIG_DIR: configDir }, stdoutColumns: 60 });
    await listRun({ limit: 2 }, ctx);
    expect(stripVTControlCharacters(io.stdout.text())).toBe('ID  NAME   CATEGORY  STATUS\n1   Rex    1         available\n2   Bella  1         pending\n');
    expect(fs.existsSync(`${configDir}/sandbox-data.json`)).toBe(true);
  });
});
