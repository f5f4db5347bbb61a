import fs from 'node:fs';
import path from 'node:path';
import { type TestContext, expect, it } from 'vitest';
import { toAddOptions } from '../../src/commands/pets/add';
import { importFile } from '../../src/commands/pets/add-file';
import { createContext } from '../../src/context';
import { InterruptedError } from '../../src/errors';
import { newApiKey, tempDir } from '../helpers/cli';
import { fakeIo, globalsWith } from '../helpers/terminal';
import { creator } from '../helpers/pet-creator';
import { type RecordedRequest, json, startScriptedServer } from '../helpers/scripted-server';

/** `pets add --file` through run() with a real Context over fake streams and Ctrl-C: what only they show. */
async function setup(t: TestContext, options: { stderrTTY: boolean; verbose?: boolean }) {
  const server = await startScriptedServer(creator());
  const configDir = tempDir();
  let soft: (() => void) | undefined;
  const io = fakeIo({ stderrTTY: options.stderrTTY });
  const ctx = createContext(globalsWith({ baseUrl: server.baseUrl, verbose: options.verbose ?? false }), {
    io,
    env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: newApiKey() },
    signal: new AbortController().signal,
    interrupts: { set: (handler) => (soft = handler) },
  });
  t.onTestFinished(async () => {
    await ctx.cleanup();
    await server.close();
  });
  const importRows = (count: number) => {
    const file = path.join(configDir, 'pets.ndjson');
    fs.writeFileSync(file, Array.from({ length: count }, (_, i) => `{"name":"P${i + 1}","categoryId":1}`).join('\n'));
    return importFile(toAddOptions({ file, concurrency: 1 }).bulk!, ctx);
  };
  return { server, io, importRows, interrupt: () => soft?.(), softHandlerSet: () => soft !== undefined };
}

it('on a terminal: a bar redrawn in place with done/total, rate, 429s and time left, showing the rate-limit wait; cleared before the summary', async (t) => {
  const { server, io, importRows } = await setup(t, { stderrTTY: true });
  const reset = String(Math.ceil(Date.now() / 1000) + 1);
  const headers = { 'retry-after': '1', 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0' };
  const body = { code: 'rate_limited', message: 'Too many requests', status: 429 };
  server.reply(json(429, body, { ...headers, 'x-ratelimit-reset': reset }));
  await importRows(3);

  const frames = io.stderr.writes.filter((chunk) => chunk.startsWith('\r\x1b[Kimport '));
  expect(frames.length).toBeGreaterThan(2);
  // Nothing sent yet: no rate to tell.
  expect(frames[0]).toMatch(/^\r\x1b\[Kimport \[\.{10}\] 0\/3 · rate: measuring · 429s: 0 · /);
  expect(frames.some((frame) => /429s: 1 · .*rate-limit wait [12]s$/.test(frame))).toBe(true);
  // Three rows in about a second, neither 10 requests nor 10 s: still measuring (the rate's rule: test/output/import-progress.test.ts).
  expect(frames.at(-1)).toMatch(/^\r\x1b\[Kimport \[#{10}\] 3\/3 · rate: measuring · 429s: 1 · in flight 1 · finishing$/);
  const text = io.stderr.text();
  // The bar is wiped before the summary, which is a line of its own.
  expect(text).toMatch(/\r\x1b\[K3 animals have no status: .+\ncreated 3, skipped 0, rejected 0, invalid 0, unknown 0 in [\d.ms]+ \(\d+\/min\); journal .+\n$/);
  // No competing countdown line from the session's own wait.
  expect(text).not.toContain('petctl: HTTP 429');
  expect(server.requests).toHaveLength(4);
});

it('off a terminal: no bar and no carriage returns; -v prints one line per row', async (t) => {
  const { io, importRows } = await setup(t, { stderrTTY: false, verbose: true });
  await importRows(2);
  expect(io.stderr.text()).not.toContain('\r');
  expect(io.stderr.text()).toContain('row 1 (line 1): created id 100\n');
  expect(io.stderr.text()).toContain('row 2 (line 2): created id 101\n');
});

it('Ctrl-C through the context: taken only while sending; the request in flight ends, then InterruptedError', async (t) => {
  const { server, importRows, interrupt, softHandlerSet } = await setup(t, { stderrTTY: false });
  const make = creator();
  let seenHandler = false;
  server.reply((request: RecordedRequest, res) => {
    seenHandler = softHandlerSet();
    interrupt();
    setTimeout(() => make(request, res), 200);
  });

  await expect(importRows(3)).rejects.toBeInstanceOf(InterruptedError);
  expect(seenHandler).toBe(true);
  expect(server.requests).toHaveLength(1);
  // Released once sending is over: a later Ctrl-C would abort as usual.
  expect(softHandlerSet()).toBe(false);
});
