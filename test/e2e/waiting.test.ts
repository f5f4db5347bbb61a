import fs from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { type CliResult, expectCleanError, setupE2e } from '../helpers/cli';
import { namedTime } from '../helpers/local-time';
import { type RecordedRequest, json } from '../helpers/scripted-server';

/**
 * The model of waiting end to end (README "Rate limits"): the built petctl
 * against scripted servers whose headers disagree with each other as the
 * sandbox's never do, at real lengths (Retry-After in seconds, windows of a
 * minute). Wall time is asserted only as lower bounds ("not before 2 s").
 * Where a case says "in under 4 s" or "at once", what is asserted is the
 * wait petctl decided on, as it announced it ("retry 1/4 in 2s", no notice
 * at all): the fake-clock tests (test/api/client.test.ts) check the
 * same cases to the millisecond. A banned key is waited out there ("bans"), and end to end in
 * test/e2e/rate-limits.test.ts.
 */

const SLACK_MS = 50;
const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const RATE_LIMITED = { code: 'rate_limited', message: 'Too many requests', status: 429 };

/** X-RateLimit-* of a window with nothing left that resets `seconds` from now (whole seconds, as servers send it). */
function exhausted(seconds: number): Record<string, string> {
  return { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + seconds) };
}

/** A reply computed when the request arrives, so that "now" in its headers is the server's now. */
function at(status: number, body: object, headers: () => Record<string, string>) {
  return (_request: RecordedRequest, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers() });
    res.end(JSON.stringify(body));
  };
}

function notices(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('petctl: '));
}

describe.concurrent('single commands: a 429’s Retry-After is the server’s word', () => {
  it('429 Retry-After 2 with Remaining 0 and Reset now+60, then 200: retried 2 s later (not before), exit 0 in under 4 s', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(at(429, RATE_LIMITED, () => ({ 'retry-after': '2', ...exhausted(60) })), json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code, result.stderr).toBe(0);
    const [first, second] = server.requests as [RecordedRequest, RecordedRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(2000 - SLACK_MS);
    // The one wait is Retry-After's 2 s, not the 58 s to the reset.
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 2s: HTTP 429']);
    server.verify();
  });

  it('Retry-After as an HTTP-date 3 s ahead: retried about 3 s later, exit 0', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply((_request, res) => {
      const date = Math.floor(Date.now() / 1000) * 1000;
      res.writeHead(429, {
        'content-type': 'application/json',
        date: new Date(date).toUTCString(),
        'retry-after': new Date(date + 3000).toUTCString(),
        ...exhausted(60),
      });
      res.end(JSON.stringify(RATE_LIMITED));
    }, json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code, result.stderr).toBe(0);
    // The date is measured against the answer's own Date header: 3 s from when the 429 was read.
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(3000 - SLACK_MS);
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 3s: HTTP 429']);
  });

  it('Retry-After 2 with Reset now+70 (beyond --max-wait): retried after 2 s, exit 0', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(at(429, RATE_LIMITED, () => ({ 'retry-after': '2', ...exhausted(70) })), json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(2000 - SLACK_MS);
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 2s: HTTP 429']);
  });

  it('always 429 Retry-After 1: 5 requests (--retries 4) at least 1 s apart, exit 5 within 10 s', async (t) => {
    const { server, petctl } = await setupE2e(t, at(429, RATE_LIMITED, () => ({ 'retry-after': '1', ...exhausted(60) })));

    const result = await petctl(['pets', 'list']);

    expect(result.code).toBe(5);
    expectCleanError(result);
    // Four waits of 1 s, and nothing else: the reset 60 s away holds nothing.
    expect(notices(result)).toEqual([1, 2, 3, 4].map((n) => `petctl: retry ${n}/4 in 1s: HTTP 429`));
    expect(server.requests).toHaveLength(5);
    for (let i = 1; i < 5; i++) expect(server.requests[i]!.at - server.requests[i - 1]!.at).toBeGreaterThanOrEqual(1000 - SLACK_MS);
    expect(result.stderr).toMatch(/^error: rate limited: Too many requests \(5 attempts over \d+(\.\d)?s\)\. Try again at \d\d:\d\d:\d\d, in 1s \(rate_limited, HTTP 429\)$/m);
  });

  it('--retries 0 against Retry-After 3 (Reset now+60); a new process on the same config dir sends about 3 s after the 429, not before', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(at(429, RATE_LIMITED, () => ({ 'retry-after': '3', ...exhausted(60) })), json(200, [PET]));

    const first = await petctl(['--retries', '0', 'pets', 'list']);
    expect(first.code).toBe(5);
    const second = await petctl(['pets', 'list']);

    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('1\tRex\t1\tavailable\n');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(3000 - SLACK_MS);
    // The new process waited for the remembered Retry-After (the 429's arrival + 3 s), not for the reset.
    const [notice, ...more] = notices(second);
    expect(more).toEqual([]);
    expect(notice).toMatch(/^petctl: rate limited \(HTTP 429, Retry-After\); waiting [1-3]s, until \d\d:\d\d:\d\d$/);
    expect(Math.abs(namedTime(notice!.replace(/^.*until /, 'at ')) - (server.requests[0]!.at + 3000))).toBeLessThanOrEqual(1000 + SLACK_MS);
  });

  it('Retry-After 10 with Reset now+2: nothing before 10 s', async (t) => {
    const { server, petctl } = await setupE2e(t);
    server.reply(at(429, RATE_LIMITED, () => ({ 'retry-after': '10', ...exhausted(2) })), json(200, [PET]));

    const result = await petctl(['pets', 'list']);

    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(10_000 - SLACK_MS);
    expect(notices(result)).toEqual(['petctl: retry 1/4 in 10s: HTTP 429']);
  });

  it('200 with Remaining 0, Reset now+5: the next process waits about 5 s, exit 0; with --max-wait 1 it exits 5 at once, nothing sent', async (t) => {
    const { server, petctl } = await setupE2e(t);
    let reset = 0;
    server.reply(
      at(200, [PET], () => {
        const headers = exhausted(5);
        reset = Number(headers['x-ratelimit-reset']) * 1000;
        return headers;
      }),
      json(200, [PET]),
    );

    expect((await petctl(['pets', 'list'])).code).toBe(0);
    const impatient = await petctl(['--max-wait', '1', 'pets', 'list']);
    expect(impatient.code).toBe(5);
    expectCleanError(impatient);
    // At once: no wait was started.
    expect(notices(impatient)).toEqual([]);
    expect(impatient.stderr).toMatch(/^error: rate limit reached; nothing sent\. Try again at \d\d:\d\d:\d\d, in \ds \(rate_limited\)$/m);
    expect(namedTime(impatient.stderr)).toBeGreaterThanOrEqual(reset - 1000);
    expect(server.requests).toHaveLength(1);

    const patient = await petctl(['pets', 'list']);
    expect(patient.code, patient.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at).toBeGreaterThanOrEqual(reset - SLACK_MS);
    expect(notices(patient)).toEqual([expect.stringMatching(/^petctl: rate limit reached; waiting [1-6]s for the window to reopen$/)]);
  });
});

describe('a 429 in the middle of a bulk import', () => {
  it('the third POST gets 429 Retry-After 2 (Remaining 0, Reset now+60): no POST starts until 2 s later, one notice, every row once, exit 0', async (t) => {
    const reset = String(Math.ceil(Date.now() / 1000) + 60);
    let posts = 0;
    let nextId = 1;
    let limitedAt = 0;
    const { server, configDir, petctl } = await setupE2e(t, (request, res) => {
      posts += 1;
      const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': '300', 'x-ratelimit-reset': reset };
      if (posts === 3) {
        limitedAt = Date.now();
        res.writeHead(429, { ...headers, 'x-ratelimit-remaining': '0', 'retry-after': '2' }).end(JSON.stringify(RATE_LIMITED));
        return;
      }
      res.writeHead(201, { ...headers, 'x-ratelimit-remaining': String(300 - posts) }).end(`{"id":${nextId++},${request.body.slice(1)}`);
    });
    const file = path.join(configDir, 'rows.ndjson');
    fs.writeFileSync(file, Array.from({ length: 10 }, (_, i) => `{"name":"row-${i + 1}","categoryId":1}`).join('\n'));

    // --verbose traces "> POST" as a request is dispatched and "< 429" as the 429's head is read, in the order they happen.
    const result = await petctl(['pets', 'add', '--file', file, '-o', 'ndjson', '--concurrency', '4', '--verbose']);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^created 10, skipped 0, rejected 0, invalid 0, unknown 0 in /m);
    const names = server.requests.map((request) => JSON.parse(request.body).name as string);
    expect(names).toHaveLength(11);
    expect(new Set(names).size).toBe(10);

    // The POSTs that started after the 429 was read (every journal flush included) are the last to arrive,
    // and none of them before Retry-After had passed.
    const trace = result.stderr.split('\n');
    const read429 = trace.findIndex((line) => line.startsWith('< 429 '));
    expect(read429).toBeGreaterThan(-1);
    const startedAfter = trace.slice(read429).filter((line) => line.startsWith('> POST ')).length;
    expect(startedAfter).toBeGreaterThanOrEqual(1);
    const arrivals = server.requests.map((request) => request.at).sort((a, b) => a - b);
    for (const at of arrivals.slice(-startedAfter)) expect(at - limitedAt).toBeGreaterThanOrEqual(2000 - SLACK_MS);

    // One wait, one notice: Retry-After's 2 s, not the minute to the reset.
    expect(notices(result)).toEqual([
      expect.stringMatching(/^petctl: (retry 1\/4 in 2s: HTTP 429|rate limited \(HTTP 429, Retry-After\); waiting [12]s, until \d\d:\d\d:\d\d)$/),
    ]);
  });
});
