import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { setupE2e } from '../helpers/cli';
import type { RecordedRequest } from '../helpers/scripted-server';
import { rowsFile } from '../helpers/import-run';

/**
 * --concurrency auto through the built petctl: a scripted service that answers every POST 50 ms
 * late and names a minute's window with plenty of room. The level grows past the 4 it starts at
 * (counted on the server's side), -v says so in `* in flight` lines, and every row is created once.
 */

const ROWS = 400;

function lateService() {
  const state = { inFlight: 0, most: 0, created: new Map<string, number>() };
  let id = 1;
  const reply = (request: RecordedRequest, res: ServerResponse) => {
    state.inFlight += 1;
    state.most = Math.max(state.most, state.inFlight);
    setTimeout(() => {
      state.inFlight -= 1;
      const name = (JSON.parse(request.body) as { name: string }).name;
      state.created.set(name, (state.created.get(name) ?? 0) + 1);
      const limits = { 'x-ratelimit-limit': '60000', 'x-ratelimit-remaining': String(60_000 - id), 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) };
      res.writeHead(201, { 'content-type': 'application/json', ...limits }).end(`{"id":${id++},${request.body.slice(1)}`);
    }, 50);
  };
  return { state, reply };
}

describe('--concurrency auto (the default), end to end', () => {
  it('against a service 50 ms away whose window has room: more than 4 in flight, -v names each level, every row created once', async (t) => {
    const service = lateService();
    const { configDir, petctl } = await setupE2e(t, service.reply);
    const file = rowsFile(configDir, 'rows.ndjson', ROWS, 'late-');

    const result = await petctl(['-v', 'pets', 'add', '--file', file, '-o', 'ndjson'], { timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(service.state.created.size).toBe(ROWS);
    expect([...service.state.created.values()].every((count) => count === 1)).toBe(true);
    expect(service.state.most).toBeGreaterThan(8);
    const levels = result.stderr.split('\n').filter((line) => line.startsWith('* in flight: '));
    expect(levels[0]).toBe('* in flight: 4 (--concurrency auto)');
    expect(levels[1]).toMatch(/^\* in flight: 5, up from 4: answers in \d+ ms \(best \d+ ms\)$/);
    const highest = Math.max(...levels.map((line) => Number(/^\* in flight: (\d+)/.exec(line)![1])));
    // The server saw no more at once than the highest level petctl announced.
    expect(service.state.most).toBeLessThanOrEqual(highest);
    expect(result.stderr).not.toMatch(/^petctl: \* /m);
  }, 90_000);
});
