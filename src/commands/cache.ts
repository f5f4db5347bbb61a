import type { Command } from 'commander';
import type { Context } from '../context';
import type { Invoke } from './types';

export function registerCache(program: Command, invoke: Invoke): void {
  const cache = program
    .command('cache')
    .helpCommand(false)
    .description('the response cache that --cache reads and fills (pets list, pets get, api)')
    .addHelpText('after', '\nExample:\n  $ petctl cache clear');
  cache
    .command('clear')
    .description('remove every cached answer, of every profile')
    .addHelpText(
      'after',
      `
Cached answers live in $XDG_CACHE_HOME/petctl (else the system's cache
directory, ~/.cache/petctl on Linux). Each expires on its own after the
duration of the --cache that stored it, and a write (pets add, api -X POST)
clears those of its service; clear removes them all at once.

Example:
  $ petctl cache clear`,
    )
    .action(() => invoke((ctx) => cacheClearRun(ctx)));
}

export async function cacheClearRun(ctx: Context): Promise<void> {
  const [{ clearCache, responsesDir }, { cacheClearedLine }] = await Promise.all([import('../api/cache'), import('../output/cache')]);
  const removed = clearCache(ctx.paths.cacheDir);
  ctx.notice(cacheClearedLine(removed, responsesDir(ctx.paths.cacheDir)));
}
