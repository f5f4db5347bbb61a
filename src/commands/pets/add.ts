import { type Command, Option } from 'commander';
import type { Context } from '../../context';
import { UsageError } from '../../errors';
import { completePetFields } from '../../input/prompts';
import { writeResult } from '../../output/result';
import { PET_STATUSES, type PetStatusValue } from '../../schemas/constants';
import { parseInt64Value } from '../parsers';
import type { Invoke } from '../root';

export interface AddOptions {
  /** Asked for on a terminal when missing (input/prompts.ts); otherwise a usage error. */
  name?: string;
  categoryId?: number | bigint;
  status?: PetStatusValue;
}

export function registerAdd(pets: Command, invoke: Invoke): void {
  pets
    .command('add')
    .description('add an animal (POST /pets); prints the created animal with its id')
    .addOption(new Option('--name <name>', "the animal's name (asked for on a terminal when missing)"))
    .addOption(new Option('--category-id <int64>', 'id of its category (asked for on a terminal when missing)').argParser(parseInt64Value))
    .addOption(new Option('--status <status>', 'availability status').choices(PET_STATUSES))
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets add --name Rex --category-id 1 --status available
  $ id=$(petctl pets add --name Tom --category-id 2 --query id)
  $ petctl pets add                     # on a terminal: asks for name, category id and status

A POST is never sent twice: it is retried only after a 429 (not processed).
Off a terminal, or with --no-input (PETCTL_NO_INPUT=1), --name and --category-id are required (exit 2).
Ctrl-C at a prompt exits 130 and sends nothing.`,
    )
    .action((options: AddOptions) => invoke((ctx) => addRun(options, ctx), { jsonResult: true }));
}

export async function addRun(given: AddOptions, ctx: Context): Promise<void> {
  if (given.name?.trim() === '') {
    throw new UsageError("option '--name <name>' must not be empty");
  }
  const options = await completePetFields(ctx, given);
  const [{ http }, { createPet }, { renderPet }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
  const pet = await createPet(http, { name: options.name, categoryId: options.categoryId, status: options.status });
  await writeResult(ctx, pet, () => renderPet(pet, ctx.globals.output, renderOptions(ctx)));
}
