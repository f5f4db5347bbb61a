import { InvalidResponseError, type PetctlError, RateLimitError, ServiceError, type WaitStop, type WaitWords, errorForStatus } from '../errors';
import { parseJson } from '../schemas/json';
import { ErrorBody } from '../schemas/pet';
import { codeFor } from './waits';

export interface Answer {
  status: number;
  text: string;
  /** Names lower-cased. */
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | undefined;
}

/** A repeated header's values joined as one. */
export function headerReader(headers: Answer['headers']): Answer['header'] {
  return (name) => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

export function errorBodyOf(text: string): ErrorBody | undefined {
  try {
    const parsed = ErrorBody.safeParse(parseJson(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A 2xx body as JSON (undefined when empty); a body that is not JSON is an invalid answer (exit 7). */
export function parseSuccessBody(answer: Answer, method: string, url: string): unknown {
  if (answer.status === 204 || answer.text === '') return undefined;
  try {
    return parseJson(answer.text);
  } catch {
    throw new InvalidResponseError(`${method} ${url} answered ${answer.status} with a body that is not JSON${snippet(answer.text)}`, answer.status);
  }
}

interface ErrorContext {
  method: string;
  url: string;
  now: number;
  /** For a 429: when it may be retried, on this machine's clock. */
  retryAt?: number;
  authHint?: string;
  words: Pick<WaitWords, 'stop'>;
  /** The key sent: a server that quotes it back (`key pk_live_… is not valid`) does not get it printed. */
  apiKey?: string;
}

/** Keys this short would blank out ordinary words; none is that short in practice. */
const SHORTEST_REDACTED_KEY = 8;

export function errorForAnswer(received: Answer, context: ErrorContext): PetctlError {
  const { method, url, apiKey } = context;
  const redact = apiKey !== undefined && apiKey.length >= SHORTEST_REDACTED_KEY;
  const answer = redact ? { ...received, text: received.text.replaceAll(apiKey, '[redacted]') } : received;
  const body = errorBodyOf(answer.text);
  const status = answer.status;
  const hint = status === 401 ? (context.authHint ?? 'run petctl auth login') : undefined;
  // No redirect is followed (the key would go with it); the service sends none: one means a wrong base URL or a proxy.
  if (status >= 300 && status < 400) {
    const location = answer.header('location')?.trim().replace(/[\u0000-\u001f\u007f]/g, ' ');
    const to = !location ? 'without a Location header' : `to ${clip(location, 300)}`;
    const message = `${method} ${url} was redirected (HTTP ${status}) ${to}; petctl does not follow redirects: check the base URL`;
    return new ServiceError(message, { code: 'redirected', status });
  }
  if (status === 429) {
    const stop = { kind: body?.code === 'key_banned' ? 'ban' : 'retry_after', until: context.retryAt, at: context.now, by: 'answer', serverMessage: body?.message } as const;
    return stopError(stop, context.words, { code: body?.code ?? 'rate_limited', body, retryAt: context.retryAt });
  }
  if (body) return errorForStatus(status, body.message, { code: body.code, status, body, hint });
  if (status >= 500) return new InvalidResponseError(`${method} ${url} failed with HTTP ${status}${snippet(answer.text)}`, status);
  // A 4xx without the Error body the specification promises: keep the status's meaning.
  const message = `HTTP ${status} without an Error body${snippet(answer.text)}`;
  return errorForStatus(status, message, { code: `http_${status}`, status, body: { code: `http_${status}`, message, status }, hint });
}

/** A 429 that petctl will not wait out (its retries or --max-wait are spent, or a second ban), or a stop before the wire. */
function stopError(stop: WaitStop, words: Pick<WaitWords, 'stop'>, facts: { code: string; body?: PetctlError['body']; retryAt?: number }): RateLimitError {
  const { message, hint } = words.stop(stop);
  return new RateLimitError(message, { ...facts, status: 429, stop, hint });
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '';
  return `: ${clip(flat, 80)}`;
}

/** Server text cut to `max` characters, `...` marking a cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** The gate's wait does not fit --max-wait; nothing was sent. Status 429: every block in the record stands for one. */
export function gateStop(stop: WaitStop, words: WaitWords): RateLimitError {
  return stopError(stop, words, { code: codeFor(stop.kind), retryAt: stop.until });
}

/** The final error after retries says how many attempts were made, over how long. */
export function afterAttempts(failure: PetctlError, attempts: { count: number; elapsedMs: number }, words: WaitWords): PetctlError {
  if (!(failure instanceof RateLimitError && failure.stop)) {
    failure.message += words.attempts(attempts.count, attempts.elapsedMs);
    return failure;
  }
  return stopError({ ...failure.stop, attempts }, words, { code: failure.code, body: failure.body, retryAt: failure.retryAt });
}
