import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { type BulkAddOptions, bulkAdd } from '../../bulk/import';
import { ImportStopped } from '../../bulk/outcome';
import { headerField } from '../../bulk/formats/columns';
import * as words from '../../output/import-end';
import { summaryLine } from '../../output/import-progress';
import { noStatusLine } from '../../output/pets';

/** `pets add --file`: runs the import (src/bulk/); output/import-end.ts words what it tells, on stderr and stdout. */
export async function importFile(options: BulkAddOptions, ctx: Context): Promise<void> {
  if (ctx.globals.query !== undefined) {
    // The rows stream out as they complete; there is no one JSON result to query.
    throw new UsageError('--query does not apply to --file', "use -o ndjson and a filter such as jq: petctl pets add --file f.csv -o ndjson | jq 'select(.ok | not)'");
  }
  const sent = options.idColumn === undefined ? undefined : headerField(options.idColumn, options.columns);
  if (sent !== undefined) throw new UsageError(`--id-column ${options.idColumn} names a field that is sent (${sent})`, 'name the column that holds your own id for each animal, such as an intake number');
  const target = async () => words.targetLabel((await ctx.target()).baseUrl);
  const report = words.importReport(options, ctx);
  const ended = await bulkAdd(options, ctx, report).catch(async (error: unknown) => {
    throw error instanceof ImportStopped ? words.stopError(error.stop, ctx.now(), await target()) : error;
  });
  if (ended === undefined) return;
  const { ending, tally, notSent } = ended;
  await report.writeRows();
  // Before the summary, so that an import ends with the summary (and, after Ctrl-C, how to go on).
  if (tally.noStatus > 0) ctx.notice(noStatusLine(tally.noStatus));
  ctx.notice(summaryLine(tally, { sendingMs: report.sendingMs(), runMs: ended.runMs }, ended.journal, options.retryUnknown));
  // After Ctrl-C, how to go on, as the error line of any other stop says it.
  if (ending.kind === 'interrupted' && notSent > 0) ctx.line(words.resumeLine(notSent));
  const error = words.endingError(ending, { ...tally, left: ended.left }, ctx.now(), await target());
  if (error) throw error;
}
