import type { BulkAddOptions } from '../../bulk/import';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { type PetFields, completePetFields } from '../../input/prompts';
import { renderOptions, writeResult } from '../../output/records';
import type { ColumnMapping } from '../../bulk/formats/columns';
import { requireKey } from '../../config/target';
import { createPet } from '../../api/endpoints/pets';
import { noStatusLine, renderPet } from '../../output/pets';

/** The fields are asked for on a terminal when missing, else a usage error; --file makes a bulk import (src/bulk/). */
type AddOptions = PetFields & { bulk?: BulkAddOptions };

export type AddFlags = PetFields & Partial<Omit<BulkAddOptions, 'format' | 'fresh' | 'columns'>> & { format?: BulkAddOptions['format']; new?: boolean; column?: ColumnMapping[] };

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
  if (journal === '') throw new UsageError('--journal needs a path');
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

export async function addRun(given: PetFields, ctx: Context): Promise<void> {
  // Where it would go, and with which key, is settled before anything is asked (no profile chosen, a bad base URL, no key).
  requireKey(await ctx.target());
  const options = await completePetFields(ctx, given);
  const { http } = await ctx.api();
  const pet = await createPet(http, { name: options.name, categoryId: options.categoryId, status: options.status });
  await writeResult(ctx, pet, () => renderPet(pet, ctx.globals.output, renderOptions(ctx)));
  if (pet.status === undefined) ctx.notice(noStatusLine(1));
}
