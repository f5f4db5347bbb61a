import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKOFF_CAP_MS, backoffMs } from '../../src/api/waits';
import {
  MAX_PLAUSIBLE_RESET_MS,
  MAX_RETRY_AFTER_MS,
  parseHttpDate,
  parseRateHeaders,
  parseRetryAfter,
  resetDelayMs,
} from '../../src/api/limits/headers';
import { Pet } from '../../src/schemas/pet';
import { parseJson } from '../../src/schemas/json';
import { tempDir } from '../helpers/cli';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server';
import { RUNS, runMain } from './helpers';

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

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(async () => {
  await server.close();
});

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
          const configDir = tempDir();

          const result = await runMain(
            ['--base-url', server.baseUrl, '--retries', '0', '--max-wait', '0', '--quiet', ...(asJson ? ['-o', 'json'] : []), ...command],
            { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: 'pk_property_test_key_0123456789' },
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

/** Header values a broken server or proxy might send. */
const headerValue = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.bigInt().map(String),
  fc.double().map(String),
  fc.integer({ min: -5, max: 10 ** 10 }).map((n) => ` ${n} `),
  fc.date({ noInvalidDate: false }).map((date) => (Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toUTCString())),
  fc.constantFrom('', ' ', '-0', '0', '1.5', '1e3', 'Infinity', 'NaN', '0x10', '99999999999999999999999', 'Thu, 01 Jan 1970 00:00:00 GMT'),
);
const epochMs = fc.integer({ min: 0, max: Date.UTC(2200, 0, 1) });

function expectBoundedWait(ms: number | undefined, max: number): void {
  if (ms === undefined) return;
  expect(Number.isFinite(ms)).toBe(true);
  expect(ms).toBeGreaterThanOrEqual(0);
  expect(ms).toBeLessThanOrEqual(max);
}

describe('rate-limit headers never give a negative, NaN or unbounded wait', () => {
  it(`Retry-After, and the delay it leads to (${RUNS.pure} runs)`, () => {
    fc.assert(
      fc.property(headerValue, fc.option(headerValue), epochMs, fc.nat(100), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (value, date, now, attempt, random) => {
        const retryAfterMs = parseRetryAfter(value, parseHttpDate(date ?? undefined), now);
        expectBoundedWait(retryAfterMs, MAX_RETRY_AFTER_MS);
        expectBoundedWait(retryAfterMs ?? backoffMs(attempt, () => random), Math.max(MAX_RETRY_AFTER_MS, BACKOFF_CAP_MS));
      }),
      { numRuns: RUNS.pure },
    );
  });

  it(`X-RateLimit-Limit/Remaining/Reset, and the pacing delay from Reset (${RUNS.pure} runs)`, () => {
    fc.assert(
      fc.property(headerValue, headerValue, headerValue, fc.option(headerValue), epochMs, (limit, remaining, reset, date, now) => {
        const headers: Record<string, string> = { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
        const rate = parseRateHeaders((name) => headers[name]);
        for (const field of [rate.limit, rate.remaining, rate.resetEpochSeconds]) expectBoundedWait(field, Number.MAX_VALUE);
        const delay = resetDelayMs(rate.resetEpochSeconds, parseHttpDate(date ?? undefined), now);
        expectBoundedWait(delay, MAX_PLAUSIBLE_RESET_MS);
        if (delay !== undefined) expect(delay).toBeGreaterThan(0);
      }),
      { numRuns: RUNS.pure },
    );
  });
});
