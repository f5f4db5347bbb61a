import type { StoreFailure } from '../api/limits/redis-failures';
import type { StoreNotice } from '../api/limits/store';

/** What the rate-limit stores report, in words: a warning, or for `failed` a -v trace line. */
export function stateStoreLine(notice: StoreNotice): string {
  switch (notice.kind) {
    case 'dropped':
      return `ignored ${notice.fields.join(', ')} in the rate-limit state at ${notice.where}: not a time petctl could have stored (not a number, or more than a day past the longest wait the service can ask for)`;
    case 'failed':
      return `state-store: ${notice.what} -> failed: ${failureText(notice.failure)}`;
    case 'fallback':
      return `cannot use the shared rate-limit state at ${notice.where}: ${failureText(notice.failure)}; using this machine's state file for the rest of this run`;
  }
}

type FixedFailure = Exclude<StoreFailure, { ms: number } | { text: string }>['kind'];

const FAILURE_WORDS: Record<FixedFailure, string> = {
  bad_time_reply: 'its TIME reply is not two integers',
  wrongpass: 'the server refused the user name or password (WRONGPASS)',
  noauth: 'the server requires a password (NOAUTH)',
  closed: 'the connection was closed',
  not_redis: "the server does not speak Redis's protocol",
  not_tls: 'the server does not speak TLS: try redis:// rather than rediss://',
};

const TIMED_WORDS: Record<Extract<StoreFailure, { ms: number }>['kind'], string> = {
  no_answer: 'no answer',
  no_connection: 'no connection',
  no_update: 'no update',
};

function failureText(failure: StoreFailure): string {
  if ('ms' in failure) return `${TIMED_WORDS[failure.kind]} within ${failure.ms / 1000}s`;
  return 'text' in failure ? failure.text : FAILURE_WORDS[failure.kind];
}
