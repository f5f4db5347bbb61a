import net from 'node:net';

/** Just enough RESP on 127.0.0.1 for ioredis to connect, and a TIME reply a test scripts (redis-server's never is);
 * `execReply`: what EXEC answers (`*-1`: another client changed a watched key, every time). */

const INFO = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';

export async function startFakeRedis(timeReply: string, execReply = '+OK\r\n') {
  const commands: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      // Each command is an array of bulk strings; its first one names it.
      for (const match of chunk.toString('latin1').matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/g)) {
        const name = match[1]!.toUpperCase();
        commands.push(name);
        if (name === 'TIME') socket.write(timeReply);
        else if (name === 'INFO') socket.write(`$${INFO.length}\r\n${INFO}\r\n`);
        else if (name === 'GET') socket.write('$-1\r\n');
        else if (name === 'EXEC') socket.write(execReply);
        else socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}/0`,
    /** Command names received, in order (upper-cased). */
    commands,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
