import fs from 'node:fs';
import type { Context } from '../context';
import type { RawRequestFlags, RawRequestIo } from '../api/endpoints/raw-request';

/** What `petctl api` was asked, and how it reads files and stdin: shared by api.ts and api-paginate.ts. */
export interface ApiOptions extends RawRequestFlags {
  include: boolean;
  /** --paginate: follow rel="next" and print every page's items (api-paginate.ts). */
  paginate?: boolean;
  /** --cache, in ms: GET only. */
  cache?: number;
}

/** What -F @file and --input read: files and stdin, through the context. */
export function requestIo(ctx: Context): RawRequestIo {
  return {
    // fs.promises (node:fs/promises, with readline) loads on first use: every command registers this one.
    readFile: (path) => fs.promises.readFile(path),
    readStdin: async () => (await import('../input/stdin')).readStdin(ctx.io.stdin),
  };
}
