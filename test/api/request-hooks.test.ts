import { describe, expect, it } from 'vitest';
import { createPet } from '../../src/api/endpoints/pets';
import { newApiKey, tempDir } from '../helpers/cli';
import { fakeContext } from '../helpers/terminal';
import { json, startScriptedServer } from '../helpers/scripted-server';

/** The per-request hooks bulk import relies on, through the real HTTP core against a scripted server. */
describe('request hooks', () => {
  async function session(t: Parameters<typeof fakeContext>[0]) {
    const server = await startScriptedServer();
    const configDir = tempDir();
    t.onTestFinished(() => server.close());
    const { ctx } = fakeContext(t, {
      env: { PETCTL_CONFIG_DIR: configDir, PETCTL_API_KEY: newApiKey(), PETCTL_BASE_URL: server.baseUrl },
    });
    return { server, http: (await ctx.api()).http };
  }

  it('calls beforeSend once per attempt, reports every status, and waits through the request’s own wait', async (t) => {
    const { server, http } = await session(t);
    server.reply(
      json(429, { code: 'rate_limited', message: 'slow down', status: 429 }, { 'retry-after': '1' }),
      json(201, { id: 7, name: 'Rex', categoryId: 1 }),
    );
    const events: string[] = [];
    const pet = await createPet(http, { name: 'Rex', categoryId: 1 }, {
      beforeSend: () => void events.push(`send ${server.requests.length}`),
      onAnswer: (answer) => events.push(`answer ${answer.status}`),
      wait: async (ms, why) => {
        events.push(`wait ${ms} ${why.endsWith(': HTTP 429') ? '429' : why}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    expect(pet.id).toBe(7);
    expect(events).toEqual(['send 0', 'answer 429', 'wait 1000 429', 'send 1', 'answer 201']);
    server.verify();
  });

  it('a 429 holds the process from the moment its head is read: a request leaving its beforeSend while the body is still coming waits out Retry-After', async (t) => {
    const { server, http } = await session(t);
    let headSentAt = 0;
    let headSent!: () => void;
    const head = new Promise<void>((resolve) => (headSent = resolve));
    server.reply(
      (_request, res) => {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3' });
        res.flushHeaders();
        headSentAt = Date.now();
        headSent();
        // The body comes much later: the hold must not wait for it.
        setTimeout(() => res.end(JSON.stringify({ code: 'rate_limited', message: 'slow down', status: 429 })), 2000);
      },
      json(201, { id: 7, name: 'Rex', categoryId: 1 }),
      json(201, { id: 8, name: 'Max', categoryId: 1 }),
    );
    const limited = createPet(http, { name: 'Rex', categoryId: 1 }, { wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
    await server.received(1);
    const next = createPet(http, { name: 'Max', categoryId: 1 }, {
      // Like the journal's flush: this request passed the gate before the 429 came, and leaves its hook after its head was read.
      beforeSend: async () => {
        await head;
        await new Promise((resolve) => setTimeout(resolve, 500));
      },
      wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    await Promise.all([limited, next]);

    expect(server.requests).toHaveLength(3);
    for (const request of server.requests.slice(1)) expect(request.at - headSentAt).toBeGreaterThanOrEqual(3000 - 50);
  });
});
