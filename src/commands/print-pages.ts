import type { LinkedPage, WalkOptions } from '../api/endpoints/pages';
import { type ItemStream, ListingProgress, bufferedStream } from '../output/listing';
import { writeResult } from '../output/records';
import type { OutputHost } from '../output/stderr';
import { plural } from '../output/waits';

/** What `pets list --all` and `api --paginate` walk: `from` is the first page's URL, `noun` counts the items, `stream`
 * writes them without --query; `outputWaits`: the output waits for the end (a table on a terminal), so the progress
 * line may be drawn; `continueWith`: the command that continues from a page, `note` after it; `noneFound`: said when
 * no item came. */
interface PrintedWalk<T> {
  pages(walk: WalkOptions): AsyncIterable<LinkedPage<readonly T[]>>;
  from: string;
  stream(): ItemStream<T>;
  noun: string;
  outputWaits?: boolean;
  continueWith(url: string): string;
  note?: string;
  onPage?(page: LinkedPage<readonly T[]>): void;
  noneFound?: string;
}

/** A stop leaves what was fetched on stdout and says how to continue; --query needs the whole array, so runs last. */
export async function printPages<T>(ctx: OutputHost, walk: PrintedWalk<T>): Promise<void> {
  const { query, verbose } = ctx.globals;
  const stream = query === undefined ? walk.stream() : bufferedStream<T>((items) => writeResult(ctx, items, () => ''));
  const progress = new ListingProgress(ctx, query !== undefined || walk.outputWaits === true, walk.noun);
  let pageUrl = walk.from;
  try {
    for await (const page of walk.pages({ hooks: { paced: true, wait: progress.wait }, ahead: true })) {
      if (verbose) ctx.line(`page ${page.number}: ${plural(page.body.length, walk.noun)}${page.next ? `, next ${page.next}` : ', no next link'}`);
      walk.onPage?.(page);
      stream.write(page.body);
      if (page.next !== undefined) pageUrl = page.next;
      progress.done(page.number, page.body.length);
    }
  } catch (error) {
    progress.clear();
    await stream.end();
    throw progress.stopped(error, () => walk.continueWith(pageUrl), walk.note);
  }
  progress.clear();
  if (progress.items === 0 && walk.noneFound !== undefined) ctx.notice(walk.noneFound);
  await stream.end();
}
