import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPet } from '../../src/api/pets';
import { NetworkError } from '../../src/errors';
import { fakeContext, newApiKey, tempConfigDir } from '../helpers/cli';
import { json, startScriptedServer } from '../helpers/scripted-server';

/** The per-request hooks bulk import relies on, through the real HTTP core against a scripted server. */
describe('request hooks', () => {
  async function session(t: Parameters<typeof fakeContext>[0]) {
    const server = await startScriptedServer();
    const configDir = tempConfigDir();
    t.onTestFinished(async () => {
      await server.close();
      fs.rmSync(configDir, { recursive: true, force: true });
    });
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
      beforeSend: () => {
        events.push(`send ${server.requests.length}`);
      },
      onAnswer: (answer) => events.push(`answer ${answer.status}`),
      wait: async (ms, why) => {
        events.push(`wait ${ms} ${why.startsWith('HTTP 429') ? '429' : why}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    expect(pet.id).toBe(7);
    expect(events).toEqual(['send 0', 'answer 429', 'wait 1000 429', 'send 1', 'answer 201']);
    server.verify();
  });

  it('a POST whose connection dropped was sent once: beforeSend ran, no answer, NetworkError.sent', async (t) => {
    const { server, http } = await session(t);
    server.reply({ destroy: true });
    const events: string[] = [];
    const failure = await createPet(http, { name: 'Rex', categoryId: 1 }, {
      beforeSend: () => {
        events.push('send');
      },
      onAnswer: (answer) => events.push(`answer ${answer.status}`),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NetworkError);
    expect((failure as NetworkError).sent).toBe(true);
    expect(events).toEqual(['send']);
    expect(server.requests).toHaveLength(1);
  });
});
