import { type Command, Option } from 'commander';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { PET_STATUSES, type PetStatusValue } from '../../schemas/constants';
import { parseInt64Value } from '../parsers';
import type { Invoke } from '../root';

export interface AddOptions {
  name: string;
  categoryId: number | bigint;
  status?: PetStatusValue;
}

export function registerAdd(pets: Command, invoke: Invoke): void {
  pets
    .command('add')
    .description('add an animal (POST /pets); prints the created animal with its id')
    .addOption(new Option('--name <name>', "the animal's name").makeOptionMandatory())
    .addOption(new Option('--category-id <int64>', 'id of its category').argParser(parseInt64Value).makeOptionMandatory())
    .addOption(new Option('--status <status>', 'availability status').choices(PET_STATUSES))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets add --name Rex --category-id 1 --status available
  $ id=$(petctl pets add --name Tom --category-id 2 -o json | jq -r .id)

A POST is never sent twice: it is retried only after a 429 (not processed).`,
    )
    .action((options: AddOptions) => invoke((ctx) => addRun(options, ctx)));
}

export async function addRun(options: AddOptions, ctx: Context): Promise<void> {
  if (options.name.trim() === '') {
    throw new UsageError("option '--name <name>' must not be empty");
  }
  const [{ http }, { createPet }, { renderPet }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
  const pet = await createPet(http, { name: options.name, categoryId: options.categoryId, status: options.status });
  ctx.io.stdout.write(renderPet(pet, ctx.globals.output, renderOptions(ctx)));
}
