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

function failureText(failure: StoreFailure): string {
  switch (failure.kind) {
    case 'no_answer':
      return `no answer within ${failure.ms / 1000}s`;
    case 'no_connection':
      return `no connection within ${failure.ms / 1000}s`;
    case 'bad_time_reply':
      return 'its TIME reply is not two integers';
    case 'wrongpass':
      return 'the server refused the user name or password (WRONGPASS)';
    case 'noauth':
      return 'the server requires a password (NOAUTH)';
    case 'closed':
      return 'the connection was closed';
    case 'not_redis':
      return "the server does not speak Redis's protocol";
    case 'not_tls':
      return 'the server does not speak TLS: try redis:// rather than rediss://';
    case 'error':
      return failure.text;
  }
}
