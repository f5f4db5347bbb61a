import fs from 'node:fs';
import path from 'node:path';
import { UnsafeFileError } from '../errors';
import { lstatIfPresent, ownershipProblem, readOwnFile } from '../file-safety';
import { ensurePrivateDir, writeFileAtomic } from '../locked-file';
import { sha256Hex } from '../digest';
import type { Answer } from './answer';
import { limitId } from './limits/store';

/**
 * The response cache behind --cache: a GET's 2xx answer, kept in the user's
 * cache directory for the duration its --cache gave, and served again to a
 * command whose --cache allows its age, with nothing sent.
 *
 * Layout: <cacheDir>/responses/<target>/<request>.json, where <target> is the
 * rate-limit state's id (a digest of the target's identity and key) and
 * <request> a digest of the method, the URL relative to the base URL and the
 * extra headers: neither the key nor the request can be read back from a name.
 * Every file is written by writeFileAtomic (exclusive, no-follow, 0600, own
 * files only) and read through a no-follow open checked on its descriptor.
 */

export interface CacheRequest {
  method: string;
  /** The URL as sent; kept relative to the base URL, so that the built-in sandbox's port changing between runs is the same request. */
  url: string;
  headers?: Record<string, string>;
}

export interface CachedAnswer {
  answer: Answer;
  ageMs: number;
}

/** The file's content: what an Answer holds, and when it was stored and stops being served. */
interface Entry {
  storedAt: number;
  expiresAt: number;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** The response cache as the HTTP client holds it, opened on first use: a request without --cache, and no write, never loads it. */
export interface CacheAccess {
  open(): Promise<ResponseCache>;
  /** A GET was answered from the cache, `ageMs` old, with nothing sent. */
  served(ageMs: number, url: string): void;
  /** A write was answered, or may have been: the target's cached answers are forgotten. Never rejects. */
  written(): Promise<void>;
}

export interface ResponseCacheOptions {
  cacheDir: string;
  baseUrl: string;
  /** The target's identity (target.ts): the base URL, or the built-in sandbox's data file. */
  identity: string;
  apiKey: string;
  /** The wall clock: ages outlive the process. */
  now: () => number;
  /**
   * The cache could not be read or written (a full disk, a folder without
   * write permission): the command goes on as without --cache. Not called for
   * an UnsafeFileError, which stops the command as for any file petctl uses.
   */
  unusable: (error: Error) => void;
}

/** The directory that holds every cached answer (what `petctl cache clear` removes). */
export function responsesDir(cacheDir: string): string {
  return path.join(cacheDir, 'responses');
}

export class ResponseCache {
  private constructor(
    private readonly options: ResponseCacheOptions,
    /** This target's directory. */
    readonly dir: string,
  ) {}

  static async open(options: ResponseCacheOptions): Promise<ResponseCache> {
    return new ResponseCache(options, path.join(responsesDir(options.cacheDir), await limitId(options.identity, options.apiKey)));
  }

  /** A stored answer for `request` fresh enough for `maxAgeMs`; otherwise `send`'s, stored for that long when `keep` says it is one to serve again. */
  async answer<T extends Answer>(request: CacheRequest, maxAgeMs: number, send: () => Promise<T>, keep: (answer: T) => boolean = () => true): Promise<T | CachedAnswer> {
    const hit = await this.tolerant(() => this.lookup(request, maxAgeMs));
    if (hit !== undefined) return hit;
    const answer = await send();
    if (keep(answer)) await this.tolerant(() => this.store(request, answer, maxAgeMs));
    return answer;
  }

  /** Set once the cache failed in this process: it is said once, and not tried again. */
  private unusable = false;

  private async tolerant<T>(use: () => Promise<T>): Promise<T | undefined> {
    if (this.unusable) return undefined;
    try {
      return await use();
    } catch (error) {
      if (error instanceof UnsafeFileError || !(error instanceof Error) || (error as NodeJS.ErrnoException).code === undefined) throw error;
      this.unusable = true;
      this.options.unusable(error);
      return undefined;
    }
  }

  /** A stored answer no older than `maxAgeMs` and not past its own expiry; an expired one is removed. */
  async lookup(request: CacheRequest, maxAgeMs: number): Promise<CachedAnswer | undefined> {
    const file = await this.fileOf(request);
    const entry = readEntry(file);
    if (entry === undefined) return undefined;
    const now = this.options.now();
    const ageMs = Math.max(0, now - entry.storedAt);
    if (now >= entry.expiresAt || entry.storedAt > now + 1000) {
      fs.rmSync(file, { force: true });
      return undefined;
    }
    if (ageMs > maxAgeMs) return undefined;
    const { status, text, headers } = entry;
    return { answer: { status, text, headers, header: (name) => headerValue(headers, name) }, ageMs };
  }

  /** Keeps a 2xx answer for `forMs`, and removes this target's expired entries on the way. */
  async store(request: CacheRequest, answer: Answer, forMs: number): Promise<void> {
    const file = await this.fileOf(request);
    const now = this.options.now();
    ensurePrivateDir(this.dir);
    this.sweep(now);
    const entry: Entry = { storedAt: now, expiresAt: now + forMs, status: answer.status, headers: answer.headers, text: answer.text };
    // Not flushed: a cache lost in a crash costs one request; the rename keeps it whole.
    writeFileAtomic(file, JSON.stringify(entry), { durable: false });
  }

  /** Removes every answer of this target: a write may have changed what any of them says. */
  forgetTarget(): void {
    if (lstatIfPresent(this.dir) === undefined) return;
    assertOwnDirectory(this.dir);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** This target's expired entries, removed whenever one is stored: a request never asked again leaves nothing behind for long. */
  private sweep(now: number): void {
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.dir, name);
      try {
        const entry = readEntry(file);
        if (entry !== undefined && now >= entry.expiresAt) fs.rmSync(file, { force: true });
      } catch (error) {
        // Another entry's trouble is its own lookup's to report; the answer being stored is fine.
        if (!(error instanceof UnsafeFileError)) throw error;
      }
    }
  }

  private async fileOf(request: CacheRequest): Promise<string> {
    const { baseUrl } = this.options;
    const relative = request.url.startsWith(baseUrl) ? request.url.slice(baseUrl.length) : request.url;
    const headers = Object.entries(request.headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
    return path.join(this.dir, `${await sha256Hex(JSON.stringify([request.method, relative, headers]))}.json`);
  }
}

function headerValue(headers: Entry['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function assertOwnDirectory(dir: string): void {
  const problem = ownershipProblem(fs.lstatSync(dir), 'directory');
  if (problem) throw new UnsafeFileError(dir, problem);
}

/**
 * The entry at `file`, or undefined when there is none or it is not an entry
 * petctl wrote (a damaged one is removed: it is only a cache). A symlink or
 * another user's file there is an UnsafeFileError.
 */
function readEntry(file: string): Entry | undefined {
  const text = readOwnFile(file);
  if (text === undefined) return undefined;
  const entry = parseEntry(text);
  if (entry === undefined) fs.rmSync(file, { force: true });
  return entry;
}

function parseEntry(text: string): Entry | undefined {
  try {
    const value = JSON.parse(text) as Partial<Entry>;
    const times = typeof value.storedAt === 'number' && typeof value.expiresAt === 'number';
    if (times && typeof value.status === 'number' && typeof value.text === 'string' && typeof value.headers === 'object' && value.headers !== null) return value as Entry;
  } catch {
    // Not JSON: treated as no entry.
  }
  return undefined;
}

/** Removes every cached answer, of every target. Returns how many there were. */
export function clearCache(cacheDir: string): number {
  const dir = responsesDir(cacheDir);
  if (lstatIfPresent(dir) === undefined) return 0;
  assertOwnDirectory(dir);
  let count = 0;
  for (const target of fs.readdirSync(dir, { withFileTypes: true })) {
    if (target.isDirectory()) count += fs.readdirSync(path.join(dir, target.name)).filter((name) => name.endsWith('.json')).length;
  }
  // rm does not follow symlinks inside the tree: it removes the links, never what they point to.
  fs.rmSync(dir, { recursive: true, force: true });
  return count;
}
