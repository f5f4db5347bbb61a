import { type Command, Option } from 'commander';
import type { BulkAddOptions } from '../../bulk/import';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { completePetFields } from '../../input/prompts';
import { writeResult } from '../../output/result';
import type { PetStatusValue } from '../../schemas/constants';
import { INPUT_ENCODINGS } from '../../bulk/decode';
import type { ColumnMapping } from '../../bulk/formats/columns';
import { parseColumn, parseConcurrency, parseDelimiter, parseInt64Value, parseReserve, statusOption } from '../parsers';
import type { Invoke } from '../types';
import { completesWith } from '../../completion/values';

export interface AddOptions {
  /** Asked for on a terminal when missing (input/prompts.ts); otherwise a usage error. */
  name?: string;
  categoryId?: number | bigint;
  status?: PetStatusValue;
  /** --file and its companions: a bulk import (src/bulk/). */
  bulk?: BulkAddOptions;
}

type AddFlags = Omit<AddOptions, 'bulk'> & Partial<Omit<BulkAddOptions, 'format' | 'fresh' | 'columns'>> & { format?: BulkAddOptions['format']; new?: boolean; column?: ColumnMapping[] };

export function registerAdd(pets: Command, invoke: Invoke): void {
  pets
    .command('add')
    .description('add an animal (POST /pets), or import many from a file with --file; prints what was created')
    .addOption(new Option('--name <name>', "the animal's name (asked for on a terminal when missing)"))
    .addOption(new Option('--category-id <int64>', 'id of its category (asked for on a terminal when missing)').argParser(parseInt64Value))
    .addOption(statusOption('availability status'))
    .addOption(new Option('--file <path|->', 'import the rows of a JSON array, NDJSON or CSV file (- = stdin)'))
    .addOption(new Option('--format <format>', 'the file format, instead of guessing from the extension or content').choices(['json', 'ndjson', 'csv']))
    .addOption(new Option('--encoding <name>', "the file's text encoding (default: UTF-8, or UTF-16 when a BOM says so)").choices(INPUT_ENCODINGS))
    .addOption(new Option('--delimiter <char>', 'the CSV field separator, or tab (default: ; when the header has ; and no ",", else ,)').argParser(parseDelimiter))
    .addOption(new Option('--column <field=header>', 'the CSV column that fills name, categoryId or status, by its header; repeatable (default: the header of that name, ignoring case, spaces, _ and -)').argParser(parseColumn))
    .addOption(new Option('--id-column <name>', "the column (or field) with your own id for each animal: a row whose id was imported before is not sent again; never sent"))
    .addOption(new Option('--new', 'send every row, even those created by an earlier import (the same content really is new animals)'))
    .addOption(new Option('--reserve <n>', 'leave n requests of every rate-limit window to other commands on the key (default 0)').argParser(parseReserve))
    .addOption(new Option('--dry-run', 'validate and count what would be sent and what was created before; send nothing'))
    .addOption(new Option('--skip-invalid', 'send the valid rows even when some are invalid (reported, exit 6)'))
    .addOption(completesWith(new Option('--concurrency <auto|1-256>', 'requests in flight at once: auto (the default) adapts them to the service\'s answers, a number fixes them').argParser(parseConcurrency), 'concurrency'))
    .addOption(new Option('--journal <path>', 'where to keep the import journal (default: in the state directory)'))
    .addOption(new Option('--retry-unknown', 'look for the rows an earlier run sent without an answer among the animals, and send only those not found'))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets add --name Rex --category-id 1 --status available
  $ id=$(petctl pets add --name Tom --category-id 2 --query id)
  $ petctl pets add                     # on a terminal: asks for name, category id and status
  $ petctl pets add --file intake.csv --id-column "Intake No"   # other columns are ignored
  $ petctl pets add --file intake.csv --id-column "Intake No" --dry-run   # count, send nothing
  $ petctl pets add --file intake.csv --id-column "Intake No"   # after fixing rows, exit 5, Ctrl-C: sends the rest
  $ petctl pets add --file shelter.csv                # CSV header: name,categoryId,status
  $ petctl pets add --file export.csv --column name=Animal --column categoryId="Category"   # other headers
  $ petctl pets add --file export.csv --encoding windows-1252   # Excel's "CSV" on Windows
  $ petctl pets add --file export.txt --delimiter tab  # any one character
  $ jq -c '.[]' pets.json | petctl pets add --file - -o ndjson
  $ petctl pets add --file litter.csv --new           # the same rows again are new animals
  $ petctl pets add --file shelter.csv --reserve 10   # leave 10 requests a minute to the front desk
  $ petctl pets add --file shelter.csv --concurrency 8   # 8 requests in flight, whatever the answers
  $ petctl pets add --file shelter.csv --retry-unknown   # after exit 7: finds or resends the unknown rows

A POST is never sent twice: it is retried only after a 429 (not processed).
Off a terminal, or with --no-input (PETCTL_NO_INPUT=1), --name and --category-id are required (exit 2).
Ctrl-C at a prompt exits 130 and sends nothing.
--file paces itself to the plan's rate (--concurrency auto: more requests in
flight while answers keep their latency, fewer when it rises, on a 429 or a
5xx) and remembers every row it created,
per base URL and key: a row created before (same id with --id-column, else
the same content from the same file) is skipped, so rerunning after an edit,
a crash or Ctrl-C sends only the rest. Rows sent without an answer are
"outcome_unknown" and never resent on their own. --retry-unknown first lists
the animals (paced, as pets list --all) and looks for each by the fields it
sent: found once, it is recorded as created; not found, it is sent again;
matching more than one animal, it is reported with their ids (exit 6).
One import at a time per journal: a second waits (up to --max-wait) for the
first to finish, then skips what it created; --dry-run does not wait.
Exit codes with --file: 0 all created (or already), 6 a row invalid,
rejected or ambiguous, 7 a row's outcome unknown, 5 stopped by the rate limit (rerun to
resume), 1 the journal cannot be written (journal_unwritable) or another
import held it past --max-wait (journal_busy), 130 Ctrl-C,
2 usage (e.g. --file with --name). The guide: petctl help bulk-import.`,
    )
    .action((flags: AddFlags) => invoke((ctx) => addRun(toAddOptions(flags), ctx), { jsonResult: true }));
}

/** Flags -> options: --file makes a bulk import, which excludes the single-animal flags. */
export function toAddOptions(flags: AddFlags): AddOptions {
  const { name, categoryId, status, file, format, encoding, delimiter, column, idColumn, reserve, dryRun, skipInvalid, concurrency, journal, retryUnknown } = flags;
  if (file === undefined) {
    const bulkFlag = Object.entries({ format, encoding, delimiter, column, idColumn, new: flags.new, reserve, dryRun, skipInvalid, concurrency, journal, retryUnknown }).find(([, value]) => value !== undefined);
    if (bulkFlag) throw new UsageError(`--${bulkFlag[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --file`);
    return { name, categoryId, status };
  }
  const single = ([['--name', name], ['--category-id', categoryId], ['--status', status]] as const).filter(([, value]) => value !== undefined);
  if (single.length > 0) throw new UsageError(`--file cannot be used with ${single.map(([flag]) => flag).join(', ')}`, 'the file gives each row its name, categoryId and status');
  if (file === '') throw new UsageError('--file needs a path, or - for standard input');
  if (idColumn?.trim() === '') throw new UsageError('--id-column needs a column name');
  if (delimiter !== undefined && format !== undefined && format !== 'csv') throw new UsageError(`--delimiter applies to CSV, not --format ${format}`);
  const bulk = {
    file,
    format,
    encoding,
    delimiter,
    columns: column,
    idColumn,
    fresh: flags.new === true,
    reserve: reserve ?? 0,
    dryRun: dryRun === true,
    skipInvalid: skipInvalid === true,
    concurrency: concurrency ?? 'auto',
    journal,
    retryUnknown: retryUnknown === true,
  };
  return { bulk };
}

export async function addRun(given: AddOptions, ctx: Context): Promise<void> {
  if (given.bulk) {
    const { importFile } = await import('./add-file');
    return importFile(given.bulk, ctx);
  }
  if (given.name?.trim() === '') {
    throw new UsageError("option '--name <name>' must not be empty");
  }
  // Where it would go, and with which key, is settled before anything is asked (no profile chosen, a bad base URL, no key).
  const { requireKey } = await import('../../config/target');
  requireKey(await ctx.target());
  const options = await completePetFields(ctx, given);
  const [{ http }, { createPet }, { renderPet }, { renderOptions }, { noStatusLine }] = await Promise.all([
    ctx.api(),
    import('../../api/endpoints/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
    import('../../output/no-status'),
  ]);
  const pet = await createPet(http, { name: options.name, categoryId: options.categoryId, status: options.status });
  await writeResult(ctx, pet, () => renderPet(pet, ctx.globals.output, renderOptions(ctx)));
  if (pet.status === undefined) ctx.notice(noStatusLine(1));
}
