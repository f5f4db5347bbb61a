import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { parse as parseLossless } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../../src/schemas/constants';
import { parseJson } from '../../src/schemas/json';
import { Pet } from '../../src/schemas/pet';
import { tempDir } from '../helpers/cli';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server';
import { runMain } from '../helpers/terminal';
import { RUNS } from './helpers';

/**
 * The whole client in this process, argv to every output format, against a scripted server. For int64, it
 * echoes the bytes it received with an id spliced in, independent of petctl's JSON code, so digits survive
 * only if every stage keeps them.
 */

let server: ScriptedServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startScriptedServer();
  env = { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: 'pk_property_test_key_0123456789' };
});

afterAll(async () => {
  await server.close();
});

/** Any int64, with the edges (±2^53 ± 1, the int64 bounds) drawn more often than chance would. */
const int64 = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n),
);

type Format = 'table-tty' | 'table' | 'json' | 'ndjson' | 'csv';
const FORMATS: Format[] = ['table-tty', 'table', 'json', 'ndjson', 'csv'];

/** The id and categoryId digits as petctl printed them in `format`, read back with tools that are not petctl's. */
function printedIds(stdout: string, format: Format): { id: string; categoryId: string } {
  switch (format) {
    case 'table-tty': {
      const [, row] = stdout.trimEnd().split('\n');
      const [id, , categoryId] = row!.trim().split(/\s+/);
      return { id: id!, categoryId: categoryId! };
    }
    case 'table': {
      const [id, , categoryId] = stdout.replace(/\n$/, '').split('\t');
      return { id: id!, categoryId: categoryId! };
    }
    case 'json':
    case 'ndjson': {
      const pet = parseLossless(stdout) as { id: { toString(): string }; categoryId: { toString(): string } };
      return { id: pet.id.toString(), categoryId: pet.categoryId.toString() };
    }
    case 'csv': {
      const [record] = parseCsv(stdout, { columns: true }) as Array<Record<string, string>>;
      return { id: record!.id!, categoryId: record!.categoryId! };
    }
  }
}

describe('int64 values are exact end to end', () => {
  it(`pets add --category-id N, pets get N: the request and every format carry N's digits (${RUNS.inProcess} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(int64, int64, fc.constantFrom(...FORMATS), fc.boolean(), async (n, id, format, add) => {
        server.reply((request, res) => {
          // pets add: the body as received with the id in front; pets get: N as both numbers.
          const body = add
            ? `{"id":${id},${request.body.slice(1)}`
            : `{"id":${n},"name":"Rex","categoryId":${n},"status":"sold"}`;
          res.writeHead(add ? 201 : 200, { 'content-type': 'application/json' }).end(body);
        });
        const before = server.requests.length;
        // pets get warns of its deprecation on stderr.
        const command = add
          ? ['pets', 'add', '--name', 'Rex', `--category-id=${n}`, '--status', 'available']
          : ['--quiet', 'pets', 'get', '--', `${n}`];
        const columns = format === 'table-tty' ? { stdoutColumns: 200 } : {};
        const output = ['-o', format === 'table-tty' ? 'table' : format, '--no-color'];

        const result = await runMain(['--base-url', server.baseUrl, ...output, ...command], env, columns);

        expect(result.code, result.stderr).toBe(0);
        if (add) expect(result.stderr).toBe('');
        if (add) expect(server.requests[before]!.body).toBe(`{"name":"Rex","categoryId":${n},"status":"available"}`);
        else expect(server.requests[before]!.path).toBe(`/v1/pets/${n}`);
        expect(printedIds(result.stdout, format)).toEqual({ id: (add ? id : n).toString(), categoryId: n.toString() });
      }),
      { numRuns: RUNS.inProcess },
    );
  });
});

/** Any name the service could hold: every code point, control characters, quotes, commas, CR and LF included. */
const anyName = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('a,b', '"', '\r', '\n', '\r\n', ' lead', 'trail ', '=1+2', ''));

const anyPet = fc.record(
  {
    id: int64,
    name: anyName,
    categoryId: int64,
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: ['id', 'name', 'categoryId'] },
);

/** A pet's csv record: ids as digits (negative ones too, numbers are never guarded); a name a spreadsheet would take for a formula with a leading '. */
function asRecord(pet: { id: bigint; name: string; categoryId: bigint; status?: string }): Record<string, string> {
  const name = /^[=+\-@\t\r]/.test(pet.name) ? `'${pet.name}` : pet.name;
  return { id: pet.id.toString(), name, categoryId: pet.categoryId.toString(), status: pet.status ?? '' };
}

describe('CSV output parses back with csv-parse to the same records (a formula-like name behind its leading \')', () => {
  it(`pets list -o csv through the whole client, names as the server sent them (${RUNS.inProcess} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyPet, { maxLength: 5 }), async (pets) => {
        // JSON.stringify cannot write bigints: the digits go in by hand.
        const body = `[${pets
          .map((pet) => `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${pet.status ? `,"status":"${pet.status}"` : ''}}`)
          .join(',')}]`;
        server.reply({ status: 200, body });

        const result = await runMain(['--base-url', server.baseUrl, '-o', 'csv', 'pets', 'list'], env);

        expect(result.code).toBe(0);
        expect(parseCsv(result.stdout, { columns: true })).toEqual(pets.map(asRecord));
      }),
      { numRuns: RUNS.inProcess },
    );
  });
});

/** A body: random bytes, arbitrary JSON, JSON that is nearly a Pet, or text. */
const anyBody = fc.oneof(
  fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
  fc.json().map((text) => Buffer.from(text)),
  fc
    .record({
      id: fc.oneof(fc.bigInt().map(String), fc.integer().map(String), fc.constant('"1"'), fc.constant('null'), fc.constant('1.5'), fc.constant('1e400')),
      name: fc.oneof(fc.string().map((s) => JSON.stringify(s)), fc.constant('7')),
      categoryId: fc.oneof(fc.bigInt().map(String), fc.constant('{}')),
      status: fc.constantFrom('"available"', '"lost"', '1', 'null'),
      code: fc.constantFrom('"rate_limited"', '"key_banned"', '"x"', '1'),
      message: fc.string().map((s) => JSON.stringify(s)),
    })
    .chain((fields) => fc.subarray(Object.keys(fields)).map((keys) => `{${keys.map((key) => `"${key}":${fields[key as keyof typeof fields]}`).join(',')}}`))
    .chain((object) => fc.constantFrom(object, `[${object}]`, `[${object},${object}]`, object.slice(0, -1)))
    .map((text) => Buffer.from(text)),
  fc.string({ unit: 'binary' }).map((text) => Buffer.from(text)),
);

const anyStatus = fc.constantFrom(200, 201, 204, 301, 304, 400, 401, 403, 404, 413, 418, 422, 429, 500, 502, 503);

const anyCommand = fc.constantFrom(
  ['pets', 'list'],
  ['pets', 'list', '--limit', '3', '--status', 'sold'],
  ['pets', 'add', '--name', 'Rex', '--category-id', '1'],
  ['pets', 'get', '1'],
  ['auth', 'status'],
);

const PETCTL_CODES = [0, 1, 3, 4, 5, 6, 7];

describe('any answer gives a typed error or a valid result', () => {
  it(`random status, headers and body bytes, every command, -o json and table (${RUNS.inProcess} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        anyStatus,
        anyBody,
        fc.option(fc.constantFrom('application/json', 'text/html', 'application/json; charset=latin1')),
        anyCommand,
        fc.boolean(),
        async (status, body, contentType, command, asJson) => {
          server.reply((_request, res) => {
            res.writeHead(status, contentType ? { 'content-type': contentType } : {});
            res.end(status === 204 || status === 304 ? undefined : body);
          });

          // A fresh directory per run: a 429 here must not block the next run's request.
          const result = await runMain(
            ['--base-url', server.baseUrl, '--retries', '0', '--max-wait', '0', '--quiet', ...(asJson ? ['-o', 'json'] : []), ...command],
            { ...env, PETCTL_CONFIG_DIR: tempDir() },
          );

          expect(PETCTL_CODES).toContain(result.code);
          expect(result.stderr).not.toMatch(/internal_error|unexpected failure|    at /);
          if (result.code === 0) {
            expect(status).toBeGreaterThanOrEqual(200);
            expect(status).toBeLessThan(300);
            // A success printed what the specification allows: for json, Pets or a Pet.
            if (asJson && command[0] === 'pets') {
              const printed = parseJson(result.stdout);
              for (const pet of Array.isArray(printed) ? printed : [printed]) expect(Pet.safeParse(pet).success).toBe(true);
            }
          } else {
            expect(result.stdout).toBe('');
            if (asJson) {
              const line = JSON.parse(result.stderr.trim().split('\n').pop()!) as Record<string, unknown>;
              expect(typeof line.code).toBe('string');
              expect(typeof line.message).toBe('string');
            } else {
              expect(result.stderr).toMatch(/^error: .+\(.+\)$/m);
            }
          }
          // Exit 1 is kept for statuses the specification does not list.
          if (result.code === 1) expect([418, 304]).toContain(status);
        },
      ),
      { numRuns: RUNS.inProcess },
    );
  });
});
