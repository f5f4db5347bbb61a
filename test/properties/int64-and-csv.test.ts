import { parse as parseCsv } from 'csv-parse/sync';
import fc from 'fast-check';
import { parse as parseLossless } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, PET_STATUSES } from '../../src/schemas/constants';
import { tempDir } from '../helpers/cli';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server';
import { RUNS, runMain } from './helpers';

/**
 * The whole client in this process, argv to every output format. The scripted server echoes the bytes it
 * received with an id spliced in, independent of petctl's JSON code, so digits survive only if every stage keeps them.
 */

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

let server: ScriptedServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startScriptedServer();
  env = { PETCTL_CONFIG_DIR: tempDir(), PETCTL_API_KEY: 'pk_property_test_key_0123456789' };
});

afterAll(async () => {
  await server.close();
});

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
