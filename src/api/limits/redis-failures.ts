import { certificateProblem } from '../transport';
import { connectionErrorText } from '../attempt';
import { untilAborted } from '../clock';

export class StoreTimeout extends Error {}
/** Other clients changed the record under every try of one update for as long as a command may go unanswered. */
export class StoreContention extends Error {}
/** TIME answered with something other than two integers: the store's clock cannot be known. */
class BadTimeReply extends Error {}

/** What went wrong with the Redis store, for output/state-store.ts to word; never the URL's password. */
export type StoreFailure =
  /** No answer, or no connection, within `ms`; no_update: every try of one update met a conflict for `ms`. */
  | { kind: 'no_answer' | 'no_connection' | 'no_update'; ms: number }
  /** not_redis: its reply is not RESP (an HTTP server at the port); not_tls: rediss:// to a server without TLS. */
  | { kind: 'bad_time_reply' | 'wrongpass' | 'noauth' | 'closed' | 'not_redis' | 'not_tls' }
  /** The connection's error as the HTTP core names it, or the server's error in its own words. */
  | { kind: 'error'; text: string };

/** Redis's clock in epoch ms from a TIME reply: [seconds, microseconds], both integers. */
export function timeReplyMs(reply: unknown): number {
  const integer = (value: unknown) => (typeof value === 'string' || typeof value === 'number') && /^\d{1,15}$/.test(String(value));
  if (!Array.isArray(reply) || reply.length !== 2 || !reply.every(integer) || Number(reply[1]) >= 1_000_000) throw new BadTimeReply();
  return Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
}

/** `password` is masked in any text the error carries. */
export function storeFailure(error: unknown, timeoutMs: number, password: string | undefined): StoreFailure {
  if (error instanceof StoreTimeout) return { kind: 'no_answer', ms: timeoutMs };
  if (error instanceof StoreContention) return { kind: 'no_update', ms: timeoutMs };
  if (error instanceof BadTimeReply) return { kind: 'bad_time_reply' };
  const err = error as { code?: string; message?: string };
  const message = err?.message ?? String(error);
  if (/^WRONGPASS/.test(message)) return { kind: 'wrongpass' };
  if (/^NOAUTH/.test(message)) return { kind: 'noauth' };
  if (/Command timed out/i.test(message)) return { kind: 'no_answer', ms: timeoutMs };
  if (err?.code === 'ETIMEDOUT') return { kind: 'no_connection', ms: timeoutMs };
  if (err?.code === 'ERR_SSL_WRONG_VERSION_NUMBER') return { kind: 'not_tls' };
  if (/^(Unknown RESP type|Protocol error)/.test(message)) return { kind: 'not_redis' };
  const named = connectionErrorText(err?.code);
  if (named) return { kind: 'error', text: named };
  if (err?.code === 'EPIPE' || /Connection is closed|Stream isn't writeable|connection.*closed/i.test(message)) return { kind: 'closed' };
  // Redis errors are one line (e.g. "ERR DB index is out of range"); none is known to repeat the password.
  const text = (certificateProblem({ message }).split('\n')[0] ?? '').slice(0, 100);
  return { kind: 'error', text: password ? text.split(password).join('****') : text };
}

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  const timedOut = new AbortController();
  const timer = setTimeout(() => timedOut.abort(), ms);
  return untilAborted(promise, timedOut.signal, () => new StoreTimeout()).finally(() => clearTimeout(timer));
}
