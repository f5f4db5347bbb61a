import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeStateUrl, stateStoreAddress } from '../../src/config/state-url';

/** A real redis-server on a free loopback port, no persistence. Missing, its tests skip, except under CI=true (.ci/run installs it). */

export const REDIS_SERVER = process.env.PETCTL_TEST_REDIS_SERVER || 'redis-server';

const installed = spawnSync(REDIS_SERVER, ['--version']).status === 0;
if (!installed && process.env.CI === 'true') {
  throw new Error(`${REDIS_SERVER} is not installed, and CI=true: the shared-state tests must run (apt-get install redis-server)`);
}
/** For describe.skipIf: true when redis-server is missing on a developer's machine. */
export const noRedisServer = !installed;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A self-signed certificate for 127.0.0.1 and localhost, its own CA (NODE_EXTRA_CA_CERTS), made in `dir` with openssl; undefined when openssl is missing. */
export function selfSignedCertificate(dir: string): { key: string; cert: string; keyFile: string; certFile: string } | undefined {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const result = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile,
      '-days', '2', '-subj', '/CN=petctl test', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=critical,CA:TRUE'],
    { stdio: 'ignore' },
  );
  if (result.status !== 0) return undefined;
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), keyFile, certFile };
}

async function startOnce(port: number, dir: string, options: RedisServerOptions): Promise<ChildProcess> {
  const args = ['--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'notice'];
  if (options.tls) {
    const certificate = selfSignedCertificate(dir);
    if (!certificate) throw new Error('openssl could not make a certificate for rediss://');
    const { certFile, keyFile } = certificate;
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', certFile, '--tls-key-file', keyFile, '--tls-ca-cert-file', certFile, '--tls-auth-clients', 'no');
  } else {
    args.push('--port', String(port));
  }
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10s:\n${log}`)), 10_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${log}`));
    });
    child.once('error', reject);
  });
  return child;
}

/** `tls`: TLS only (rediss://), with a self-signed certificate that `ca` names (for NODE_EXTRA_CA_CERTS). */
interface RedisServerOptions {
  password?: string;
  tls?: boolean;
}

export type RedisServer = Awaited<ReturnType<typeof startRedisServer>>;

export async function startRedisServer(options: RedisServerOptions = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petctl-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  // The free port may be taken between the probe and redis-server's bind: try another.
  for (let attempt = 0; !child; attempt += 1) {
    port = await freePort();
    try {
      child = await startOnce(port, dir, options);
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
  const running = child;
  const auth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
  return {
    port,
    url: `${options.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}/0`,
    password: options.password,
    ca: options.tls ? path.join(dir, 'cert.pem') : undefined,
    /** Freezes it: the kernel accepts connections, nothing answers. */
    pause: () => running.kill('SIGSTOP'),
    resume: () => running.kill('SIGCONT'),
    /** As if the machine went away; resolves once it has exited. */
    async kill() {
      running.kill('SIGKILL');
      await exited(running);
    },
    /** Safe after kill(). */
    async stop() {
      running.kill('SIGTERM');
      await exited(running);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A state URL as the Redis store takes it: the address, and how warnings name it. */
export function redisAt(stateUrl: string): { address: ReturnType<typeof stateStoreAddress>; where: string } {
  return { address: stateStoreAddress(stateUrl), where: describeStateUrl(stateUrl) };
}
