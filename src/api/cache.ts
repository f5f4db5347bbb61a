import fs from 'node:fs';
import path from 'node:path';
import { UnsafeFileError } from '../errors';
import { folderProblem, readOwnFile, removeOwnFile } from '../file-safety';
import { makeDirs, writeFileAtomic } from '../locked-file';
import { sha256Hex } from '../digest';
import { type Answer, headerReader, parseSuccessBody } from './answer';
import { limitId } from './limits/store';
import { type ApiRequest, type ApiResponse, requestUrl } from './request';

// <cacheDir>/responses/<target>/<request>.json (docs/cache.md): digests, so no name gives back the key or the request.
// Each folder must be the user's own (else unused, said once); files are read no-follow; it removes only its own names.

/** Methods that change nothing (RFC 9110, 9.2.1): every other one clears the target's cached answers. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A target's folder (limitId), an entry (fileOf), and an entry's temporary (tempPathFor) a crash left behind. */
const TARGET_NAME = /^[0-9a-f]{32}$/;
const ENTRY_NAME = /^[0-9a-f]{64}\.json$/;
const ENTRY_TEMP_NAME = /^[0-9a-f]{64}\.json\.[0-9a-f]{16}\.tmp$/;

interface CacheRequest {
  method: string;
  /** Kept relative to the base URL, so that the built-in sandbox's port changing between runs is the same request. */
  url: string;
  headers?: Record<string, string>;
}

interface CachedAnswer {
  answer: Answer;
  ageMs: number;
}

type Entry = Pick<Answer, 'status' | 'headers' | 'text'> & { storedAt: number; expiresAt: number };

/** The response cache as the HTTP client holds it, opened on first use: a request without --cache, and no write, never loads it. */
export interface CacheAccess {
  open(): Promise<ResponseCache>;
  /** A GET was answered from the cache, `ageMs` old, with nothing sent. */
  served(ageMs: number, url: string): void;
  /** A write was answered, or may have been: the target's cached answers are forgotten. Never rejects. */
  written(): Promise<void>;
}

interface ResponseCacheOptions {
  cacheDir: string;
  baseUrl: string;
  /** The target's identity (target.ts). */
  identity: string;
  apiKey: string;
  /** The wall clock: ages outlive the process. */
  now: () => number;
  /** The cache is not to be used: the command goes on as without --cache (an entry that fails the rule stops it instead). */
  unusable: (error: Error) => void;
}

export function responsesDir(cacheDir: string): string {
  return path.join(cacheDir, 'responses');
}

export class ResponseCache {
  private constructor(
    private readonly options: ResponseCacheOptions,
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

  private unusable = false;

  private giveUp(error: Error): void {
    if (!this.unusable) this.options.unusable(error);
    this.unusable = true;
  }

  /** Whether this target's folder and those above it are the user's own, looked at on every use. */
  private ownFolders(make: boolean): boolean {
    const walked = walkFolders([this.options.cacheDir, responsesDir(this.options.cacheDir), this.dir], make);
    if (walked instanceof UnsafeFileError) this.giveUp(walked);
    return walked === 'own';
  }

  private async tolerant<T>(use: () => Promise<T>): Promise<T | undefined> {
    if (this.unusable) return undefined;
    try {
      return await use();
    } catch (error) {
      if (error instanceof UnsafeFileError || !(error instanceof Error) || (error as NodeJS.ErrnoException).code === undefined) throw error;
      this.giveUp(error);
      return undefined;
    }
  }

  async lookup(request: CacheRequest, maxAgeMs: number): Promise<CachedAnswer | undefined> {
    if (!this.ownFolders(false)) return undefined;
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
    return { answer: { status, text, headers, header: headerReader(headers) }, ageMs };
  }

  /** Keeps a 2xx answer for `forMs`, and removes this target's expired entries (a request never asked again leaves nothing for long). */
  async store(request: CacheRequest, answer: Answer, forMs: number): Promise<void> {
    if (!this.ownFolders(true)) return;
    const file = await this.fileOf(request);
    const now = this.options.now();
    this.sweep(now);
    const entry: Entry = { storedAt: now, expiresAt: now + forMs, status: answer.status, headers: answer.headers, text: answer.text };
    // Not flushed: a cache lost in a crash costs one request; the rename keeps it whole.
    writeFileAtomic(file, JSON.stringify(entry), { durable: false });
  }

  /** A write may have changed what any of this target's answers says. */
  forgetTarget(): void {
    if (!this.ownFolders(false)) return;
    removeEntries(this.dir);
  }

  private sweep(now: number): void {
    for (const name of fs.readdirSync(this.dir)) {
      if (!ENTRY_NAME.test(name)) continue;
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

/** Checks `folders`, each inside the one before (with `make`, a missing one is made 0700): 'own', 'absent', or the first problem. */
function walkFolders(folders: readonly string[], make: boolean): 'own' | 'absent' | UnsafeFileError {
  for (const dir of folders) {
    let problem = folderProblem(dir);
    if (problem === 'absent' && make) {
      // The cache root's parents may not exist yet (~/.cache on a new account); below it, only `dir` is made.
      makeDirs(dir);
      problem = folderProblem(dir);
    }
    if (problem === 'absent') return 'absent';
    if (problem) return new UnsafeFileError(dir, problem);
  }
  return 'own';
}

/** Removes a target's entries that pass the rule, then the folder if that emptied it; how many. */
function removeEntries(dir: string): number {
  let count = 0;
  for (const name of fs.readdirSync(dir)) {
    const entry = ENTRY_NAME.test(name);
    if ((entry || ENTRY_TEMP_NAME.test(name)) && removeOwnFile(path.join(dir, name)) && entry) count++;
  }
  try {
    fs.rmdirSync(dir);
  } catch {
    // Not empty: what is left is not the cache's to remove.
  }
  return count;
}

/** The entry at `file`; a damaged one is removed (it is only a cache). A link or another user's file is an UnsafeFileError. */
function readEntry(file: string): Entry | undefined {
  const text = readOwnFile(file);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Entry>;
    const times = typeof value.storedAt === 'number' && typeof value.expiresAt === 'number';
    if (times && typeof value.status === 'number' && typeof value.text === 'string' && typeof value.headers === 'object' && value.headers !== null) return value as Entry;
  } catch {
    // Not JSON: no entry.
  }
  fs.rmSync(file, { force: true });
  return undefined;
}

/** Removes and counts every target's cached answers: a folder on the way not the user's own is an UnsafeFileError; a target's is left. */
export function clearCache(cacheDir: string): number {
  const dir = responsesDir(cacheDir);
  const walked = walkFolders([cacheDir, dir], false);
  if (walked instanceof UnsafeFileError) throw walked;
  if (walked === 'absent') return 0;
  let count = 0;
  for (const name of fs.readdirSync(dir)) {
    const target = path.join(dir, name);
    if (TARGET_NAME.test(name) && folderProblem(target) === undefined) count += removeEntries(target);
  }
  return count;
}

/** A GET with --cache may be answered from the cache; a write clears it once answered. */
export async function sendThroughCache(
  request: ApiRequest,
  cache: CacheAccess,
  baseUrl: string,
  send: (request: ApiRequest) => Promise<ApiResponse>,
): Promise<ApiResponse> {
  const method = request.method.toUpperCase();
  if (!SAFE_METHODS.has(method)) {
    try {
      return await send(request);
    } finally {
      await cache.written();
    }
  }
  if (request.cacheForMs === undefined || method !== 'GET') return send(request);
  const url = requestUrl(baseUrl, request);
  const result = await (await cache.open()).answer({ method, url, headers: request.headers }, request.cacheForMs, () => send(request), request.cacheIf);
  if (!('ageMs' in result)) return result;
  // Nothing was sent, so the rate-limit gate is neither asked nor told: the stored limits are history.
  request.hooks?.onAnswer?.(result.answer);
  cache.served(result.ageMs, url);
  const body = request.rawResponse ? undefined : parseSuccessBody(result.answer, method, url);
  return { ...result.answer, url, body, rate: {} };
}
