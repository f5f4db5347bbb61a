import { Argument, type Command } from 'commander';
import type { Context } from '../../context';
import { writeResult } from '../../output/result';
import { GET_PET_SUNSET } from '../../schemas/constants';
import { cacheOption, parseInt64Value } from '../parsers';
import type { Invoke } from '../types';

export interface GetOptions {
  petId: number | bigint;
  /** --cache, in ms. */
  cache?: number;
}

export function registerGet(pets: Command, invoke: Invoke): void {
  pets
    .command('get')
    .description(`show one animal (GET /pets/{petId}; deprecated, removed on ${GET_PET_SUNSET})`)
    .addArgument(new Argument('<petId>', 'the animal\'s id (int64)').argParser(parseInt64Value))
    .addOption(cacheOption())
    .addHelpText(
      'after',
      `
Examples:
  $ petctl pets get 42
  $ petctl pets get 42 --query name
  $ petctl pets get 42 --cache 5m
  $ petctl pets list --status available     # the replacement`,
    )
    .action((petId: number | bigint, flags: { cache?: number }) => invoke((ctx) => getRun({ petId, cache: flags.cache }, ctx), { jsonResult: true }));
}

export async function getRun(options: GetOptions, ctx: Context): Promise<void> {
  const [{ http }, { getPet }, { renderPet }, { renderOptions }] = await Promise.all([
    ctx.api(),
    import('../../api/endpoints/pets'),
    import('../../output/pets'),
    import('../../output/settings'),
  ]);
  let sunset = GET_PET_SUNSET;
  const warn = () =>
    ctx.warn(`GET /pets/{petId} is deprecated and is to be removed on ${sunset}; use \`petctl pets list --status <status>\` instead`);
  try {
    const pet = await getPet(http, options.petId, (date) => (sunset = date), options.cache);
    await writeResult(ctx, pet, () => renderPet(pet, ctx.globals.output, renderOptions(ctx)));
  } catch (error) {
    // With -o json|ndjson a failure's stderr is the one JSON error line.
    if (ctx.globals.output !== 'json' && ctx.globals.output !== 'ndjson') warn();
    throw error;
  }
  warn();
}
