import { certificateProblem } from '../transport';
import { connectionErrorText } from '../attempt';

/**
 * What can go wrong with the Redis store, told apart: a command with no answer
 * in time, a TIME reply that is not two integers, and the server's or the
 * connection's errors, in the few words the fallback warning gives them.
 */

export class StoreTimeout extends Error {}
/** TIME answered with something other than two integers: the store's clock cannot be known. */
class BadTimeReply extends Error {}

/** Redis's clock in epoch ms from a TIME reply: [seconds, microseconds], both integers. */
export function timeReplyMs(reply: unknown): number {
  const integer = (value: unknown) => (typeof value === 'string' || typeof value === 'number') && /^\d{1,15}$/.test(String(value));
  if (!Array.isArray(reply) || reply.length !== 2 || !reply.every(integer) || Number(reply[1]) >= 1_000_000) throw new BadTimeReply();
  return Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
}

/** What went wrong, for the warning: never the URL's password, never a raw message that might echo it. */
export function describeStoreError(error: unknown, timeoutMs: number): string {
  if (error instanceof StoreTimeout) return `no answer within ${timeoutMs / 1000}s`;
  if (error instanceof BadTimeReply) return 'its TIME reply is not two integers';
  const err = error as { code?: string; message?: string };
  const message = err?.message ?? String(error);
  if (/^WRONGPASS/.test(message)) return 'the server refused the user name or password (WRONGPASS)';
  if (/^NOAUTH/.test(message)) return 'the server requires a password (NOAUTH)';
  if (/Command timed out/i.test(message)) return `no answer within ${timeoutMs / 1000}s`;
  if (err?.code === 'ETIMEDOUT') return `no connection within ${timeoutMs / 1000}s`;
  const named = connectionErrorText(err?.code);
  if (named) return named;
  if (/Connection is closed|Stream isn't writeable|connection.*closed/i.test(message)) return 'the connection was closed';
  // Redis errors are one line (e.g. "ERR DB index is out of range"); they never contain the password.
  return (certificateProblem({ message }).split('\n')[0] ?? '').slice(0, 100);
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
