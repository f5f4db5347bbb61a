import { clearCache, responsesDir } from '../api/cache';
import type { Context } from '../context';
import { cacheClearedLine } from '../output/cache';

export async function cacheClearRun(ctx: Context): Promise<void> {
  const removed = clearCache(ctx.paths.cacheDir);
  ctx.notice(cacheClearedLine(removed, responsesDir(ctx.paths.cacheDir)));
}
