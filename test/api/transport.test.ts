import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import apiRequest from 'undici/lib/api/api-request.js';
import { createDispatcher, discardDispatcher } from '../../src/api/transport';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('discardDispatcher', () => {
  it('ends the sockets with an error that has no stack frames, and leaves Error.stackTraceLimit as it was', () => {
    // Formatting a stack through code-cached functions recompiles them: the error handed to the sockets has none to format.
    const given: unknown[] = [];
    const dispatcher = { destroy: (error: unknown) => (given.push(error), Promise.resolve()) } as unknown as Dispatcher;
    const limit = Error.stackTraceLimit;
    discardDispatcher(dispatcher);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(given).toHaveLength(1);
    expect((given[0] as Error).stack).toBe('Error: petctl is done with this connection');
  });

  it('closes a real connection: the server sees it end', async () => {
    const closed = new Promise<void>((resolve) => {
      const server = http.createServer((_request, response) => response.end('{}'));
      server.on('connection', (socket) => socket.on('close', () => resolve()));
      servers.push(server);
      server.listen(0, '127.0.0.1');
    });
    await new Promise((resolve) => servers[0]!.once('listening', resolve));
    const { port } = servers[0]!.address() as AddressInfo;
    const dispatcher = await createDispatcher({ timeoutMs: 5_000, env: {}, direct: true });
    const answer = await apiRequest.call(dispatcher, { origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' });
    await answer.body.text();
    discardDispatcher(dispatcher);
    await closed;
  });
});
