/** The exit-code table and one error class per code: a throw chooses the exit code by the class it names. */

export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  AUTH: 4,
  RATE_LIMITED: 5,
  REJECTED: 6,
  NETWORK: 7,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** `code`: the server's Error code, or the client's; `status`: 0 without an answer (a refusal from saved state: 429);
 * `hint`: what to do next, one line; `body`: the server's Error body, for `-o json`. */
interface ErrorDetails {
  code: string;
  status?: number;
  hint?: string;
  body?: Record<string, unknown>;
  cause?: unknown;
}

/** Every error petctl ends with; its exit code is its class's. */
export abstract class PetctlError extends Error {
  abstract readonly exitCode: ExitCode;
  readonly code: string;
  readonly status: number;
  readonly hint?: string;
  readonly body?: Record<string, unknown>;

  constructor(message: string, details: ErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = details.code;
    this.status = details.status ?? 0;
    this.hint = details.hint;
    this.body = details.body;
  }
}

/** Exit 1: petctl's own files cannot be used, or a failure it did not expect. */
export class FailureError extends PetctlError {
  readonly exitCode = ExitCode.FAILURE;
}

/** Exit 2: a bad flag or value, an unknown command or profile; nothing was sent. A hint alone: `usage_error`. */
export class UsageError extends PetctlError {
  readonly exitCode = ExitCode.USAGE;

  constructor(message: string, hint?: string);
  constructor(message: string, details: ErrorDetails);
  constructor(message: string, details?: string | ErrorDetails) {
    super(message, typeof details === 'object' ? details : { code: 'usage_error', hint: details });
  }
}

/** Exit 3: the service has no such thing (HTTP 404). */
export class NotFoundError extends PetctlError {
  readonly exitCode = ExitCode.NOT_FOUND;
}

/** Exit 4: no key, a key refused (HTTP 401, 403), or a keychain that does not answer. */
export class AuthError extends PetctlError {
  readonly exitCode = ExitCode.AUTH;
}

export class NotConfiguredError extends AuthError {
  constructor(message: string, hint?: string) {
    super(message, { code: 'not_configured', hint });
  }
}

/** Exit 6: what was sent or given is refused (HTTP 400, 413, 422, an import's rows or input). */
export class RejectedError extends PetctlError {
  readonly exitCode = ExitCode.REJECTED;
}

/** Exit 7: the service could not be reached, failed (5xx), or answered not as the specification says. */
export class ServiceError extends PetctlError {
  readonly exitCode = ExitCode.NETWORK;
}

/** The waits of the HTTP core (api/waits.ts has the table). */
export type WaitKind = 'retry_after' | 'ban' | 'minute_window' | 'day_quota' | 'backoff' | 'probe';

/** What stopped a request on a rate limit, as facts (output/waits.ts words them). `until`: when a retry may succeed
 * (epoch ms), when known; `at`: when the stop was decided; `by` 'gate': held before the wire, 'answer': a 429 not
 * waited out; `noWait`: --max-wait 0; `attempts`: a 429 ending a request after retries. */
export interface WaitStop {
  kind: WaitKind;
  until?: number;
  at: number;
  by: 'gate' | 'answer';
  noWait?: boolean;
  serverMessage?: string;
  attempts?: { count: number; elapsedMs: number };
}

/** A wait the core is about to make: the gate holding a request (nothing sent yet), or a retry after a failed attempt
 * (`reason`: `HTTP 503`, `connection reset by the server`). */
export type WaitNotice =
  | { what: 'gate'; kind: WaitKind; ms: number; until: number; at: number }
  | { what: 'retry'; kind: WaitKind; ms: number; at: number; retry: number; retries: number; reason: string };

/** The sentences the layer above gives the core for its notices and errors (output/waits.ts). */
export interface WaitWords {
  notice(notice: WaitNotice): string;
  stop(stop: WaitStop): { message: string; hint?: string };
  /** The end of a final error after retries: `, 5 attempts over 16.7s`. */
  attempts(count: number, elapsedMs: number): string;
}

/** 429s that could not be waited out within --retries / --max-wait, or a banned key. */
export class RateLimitError extends PetctlError {
  readonly exitCode = ExitCode.RATE_LIMITED;
  /** Epoch ms after which a retry may succeed; `stop`, for a command that words it in its own terms. */
  readonly retryAt?: number;
  readonly stop?: WaitStop;

  constructor(message: string, details: ErrorDetails & { retryAt?: number; stop?: WaitStop }) {
    super(message, details);
    this.retryAt = details.retryAt;
    this.stop = details.stop;
  }
}

/** The rate-limit stop behind an error: itself, or a cause (auth login wraps the stop that kept it from checking the key). */
export function rateLimitCause(error: unknown): RateLimitError | undefined {
  for (let depth = 0; depth < 8 && error instanceof Error; depth++, error = error.cause) {
    if (error instanceof RateLimitError) return error;
  }
  return undefined;
}

/** state.json cannot be written: the request is not sent, since the limits it holds for every petctl would no longer be kept. */
export class StateUnwritableError extends FailureError {
  constructor(
    readonly file: string,
    reason: string,
    cause: unknown,
  ) {
    super(`cannot write the rate-limit state file ${file}: ${reason}`, {
      code: 'state_unwritable',
      hint: 'free some space on its disk or make its directory writable again, then rerun the command; the request was not sent',
      cause,
    });
  }
}

/** The connection failed or was dropped, or no answer came in time. */
export class NetworkError extends ServiceError {
  /** `sent`: false only when no connection was made; `retryable`: false for a refused connection to this machine. */
  readonly sent: boolean;
  readonly retryable: boolean;

  constructor(message: string, details: { code?: 'network_error' | 'timeout'; sent: boolean; retryable?: boolean; cause?: unknown; hint?: string }) {
    super(message, { code: details.code ?? 'network_error', cause: details.cause, hint: details.hint });
    this.sent = details.sent;
    this.retryable = details.retryable ?? true;
  }
}

/** The server answered, but not with what the specification says (HTML from a proxy, a Pet without id, ...). */
export class InvalidResponseError extends ServiceError {
  constructor(message: string, status: number, hint?: string) {
    super(message, { code: 'invalid_response', status, hint });
  }
}

/** What is wrong with a file petctl would write or trust, as file-safety.ts finds it. */
export type FileProblem =
  | { kind: 'symlink' }
  | { kind: 'not_regular' }
  | { kind: 'not_directory' }
  | { kind: 'other_owner'; uid: number }
  | { kind: 'writable_by_others'; mode: number }
  | { kind: 'shared_directory'; mode: number }
  | { kind: 'not_journal' };

/** A FileProblem in words, of `subject`: "it" (after the file's name), or the file's name itself. */
export function describeProblem(problem: FileProblem, subject = 'it'): string {
  if (problem.kind === 'other_owner') return `${subject} is owned by another user (uid ${problem.uid})`;
  if (problem.kind === 'writable_by_others') return `other users can write to ${subject} (mode 0${(problem.mode & 0o777).toString(8).padStart(3, '0')})`;
  if (problem.kind === 'shared_directory') return `${subject} is a directory shared with other users (mode ${(problem.mode & 0o7777).toString(8)}), as /tmp is`;
  const words = { symlink: 'is a symbolic link', not_regular: 'is not a regular file', not_directory: 'is not a directory' } as const;
  if (problem.kind !== 'not_journal') return `${subject} ${words[problem.kind]}`;
  return `${subject} is not a petctl import journal (its first line is not a journal header), so petctl does not write into it`;
}

function unsafeFileHint(file: string, problem: FileProblem): string {
  if (problem.kind === 'not_journal') return 'choose another --journal path';
  if (problem.kind === 'writable_by_others') return `if its content is yours, run chmod go-w ${file}; otherwise move it away`;
  if (problem.kind === 'shared_directory') return 'petctl makes its config directory private (0700): give PETCTL_CONFIG_DIR a directory of your own';
  return 'petctl uses only regular files and directories you own: move it away, or choose another path';
}

/** A file petctl would write or trust could have been planted or changed by another user: stop before anything is sent. */
export class UnsafeFileError extends FailureError {
  constructor(
    readonly file: string,
    readonly problem: FileProblem,
  ) {
    super(`refusing to use ${file}: ${describeProblem(problem)}`, { code: 'unsafe_file', hint: unsafeFileHint(file, problem) });
  }
}

/** Ctrl-C or SIGTERM: exit 130, and petctl ends by the signal itself. */
export class InterruptedError extends PetctlError {
  readonly exitCode = ExitCode.INTERRUPTED;

  constructor() {
    super('interrupted', { code: 'interrupted' });
  }
}

const CLASS_OF_EXIT = [FailureError, UsageError, NotFoundError, AuthError, RateLimitError, RejectedError, ServiceError] as const;

export function errorForStatus(status: number, message: string, details: ErrorDetails): PetctlError {
  if (status === 400 || status === 413 || status === 422) return new RejectedError(message, details);
  if (status === 401 || status === 403) return new AuthError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 429) return new RateLimitError(message, details);
  if (status >= 500) return new ServiceError(message, details);
  return new FailureError(message, details);
}

/** `error` in more words, of its class's exit code and keeping a rate limit's retry time and stop. */
export function restated(error: PetctlError, message: string, details: ErrorDetails): PetctlError {
  const facts = error instanceof RateLimitError ? { retryAt: error.retryAt, stop: error.stop } : {};
  return error instanceof InterruptedError ? error : new CLASS_OF_EXIT[error.exitCode - 1]!(message, { ...details, ...facts });
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file is too large for this system (EFBIG)',
  EROFS: 'the file system is read-only (EROFS)',
  EIO: 'an input/output error (EIO)',
  ENAMETOOLONG: 'its name is too long (ENAMETOOLONG)',
};

/** A failed read or write of petctl's files in words; `overrides`: a code's reason in this context. */
export function describeFsError(error: unknown, overrides: Record<string, string> = {}): string {
  const code = (error as { code?: string }).code;
  return (code && (overrides[code] ?? FS_REASONS[code])) || (error as Error).message;
}

const FS_CALLS = new Set(['open', 'mkdir', 'rmdir', 'unlink', 'rename', 'stat', 'lstat', 'fstat', 'scandir', 'read', 'write', 'fsync', 'chmod', 'utime']);

/** A file-system error no module words itself (a config directory that may not be written, a path through a file):
 * the user's to fix, so its path and the system's reason rather than an unexpected failure. */
export function fileSystemFailure(error: unknown): FailureError | undefined {
  const { path: file, syscall, code } = error as NodeJS.ErrnoException;
  // proper-lockfile's: a lock kept fresh by a live process all the while petctl waited (locked-file.ts).
  const locked = (error as { file?: unknown }).file;
  if (code === 'ELOCKED' && typeof locked === 'string') {
    return new FailureError(`cannot use ${locked}: another process held its lock (${locked}.lock) all the while petctl waited`, {
      code: 'file_unusable',
      hint: 'try again once that process ends; remove the lock only if no petctl is running',
      cause: error,
    });
  }
  if (typeof file !== 'string' || !FS_CALLS.has(syscall ?? '')) return undefined;
  return new FailureError(`cannot ${syscall === 'mkdir' ? 'create' : 'use'} ${file}: ${describeFsError(error)}`, { code: 'file_unusable', cause: error });
}

/** Output the system refused to write (`> file` on a full disk, an I/O error) is lost: no success for a script to trust.
 * A pipe closed by its reader (`| head -1`) is the reader's choice: bin/petctl.js ends quietly then. */
export function outputUnwritable(error: Error | undefined): FailureError | undefined {
  if (error === undefined) return undefined;
  const message = `cannot write to standard output: ${describeFsError(error)}; its output is lost, not what the command did`;
  return new FailureError(message, { code: 'output_unwritable', cause: error });
}
