import { type Command, Option } from 'commander';
import type { Context } from '../../context';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, PET_STATUSES, type PetStatusValue } from '../../schemas/constants';
import { parseLimit } from '../parsers';
import type { Invoke } from '../root';

export interface ListOptions {
  limit?: number;
  status?: PetStatusValue;
}

export function registerList(pets: Command, invoke: Invoke): void {
  pets
    .command('list')
    .description('list animals (GET /pets)')
    .addOption(new Option('--limit <n>', `at most this many animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default ${LIMIT_DEFAULT})`).argParser(parseLimit))
    .addOption(new Option('--status <status>', 'only animals with this status').choices(PET_STATUSES))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets list --status available
  $ petctl pets list --limit 100 -o csv > pets.csv
  $ petctl pets list | cut -f2          # names, one per line, when piped`,
    )
    .action((options: ListOptions) => invoke((ctx) => listRun(options, ctx)));
}

export async function listRun(options: ListOptions, ctx: Context): Promise<void> {
  const [{ http }, { listPets }, { renderPets }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
  const { pets } = await listPets(http, { limit: options.limit, status: options.status });
  if (pets.length === 0 && ctx.globals.output === 'table') ctx.notice('No animals found.');
  ctx.io.stdout.write(renderPets(pets, ctx.globals.output, renderOptions(ctx)));
}
