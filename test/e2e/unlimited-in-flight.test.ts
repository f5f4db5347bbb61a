import fs from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import type { RecordedRequest } from '../helpers/scripted-server';

/**
 * A service whose answers carry no rate-limit headers at all: there is no
 * budget to track, so an import sends as many requests at once as
 * --concurrency allows, from its second request on (the first finds out
 * that nothing is said).
 */

const ROWS = 40;
const LATENCY_MS = 25;

function unlimitedService() {
  let inFlight = 0;
  let maxInFlight = 0;
  let id = 1;
  const reply = (request: RecordedRequest, res: ServerResponse) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(201, { 'content-type': 'application/json' }).end(`{"id":${id++},${request.body.slice(1)}`);
    }, LATENCY_MS);
  };
  return { reply, maxInFlight: () => maxInFlight };
}

describe('an import against a service that names no limits', () => {
  it('keeps --concurrency 4 requests in flight, every row created once', async (t) => {
    const service = unlimitedService();
    const { server, configDir, petctl } = await setupE2e(t, service.reply);
    const file = path.join(configDir, 'rows.ndjson');
    fs.writeFileSync(file, Array.from({ length: ROWS }, (_, i) => `{"name":"row-${i + 1}","categoryId":1}`).join('\n'));

    const result = await petctl(['pets', 'add', '--file', file, '--concurrency', '4', '-o', 'ndjson'], { timeoutMs: 60_000 });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^created 40, skipped 0, /m);
    const names = server.requests.map((request) => (JSON.parse(request.body) as { name: string }).name);
    expect(new Set(names).size).toBe(ROWS);
    expect(names).toHaveLength(ROWS);
    expect(service.maxInFlight()).toBe(4);
  }, 70_000);
});
