import type { Context } from '../../context';
import { renderOptions, writeResult } from '../../output/records';
import { GET_PET_SUNSET } from '../../schemas/constants';
import { getPet } from '../../api/endpoints/pets';
import { renderPet } from '../../output/pets';

export async function getRun(options: { petId: number | bigint; cache?: number }, ctx: Context): Promise<void> {
  const { http } = await ctx.api();
  let sunset = GET_PET_SUNSET;
  const warn = () => ctx.warn(`GET /pets/{petId} is deprecated and is to be removed on ${sunset}; use \`petctl pets list --status <status>\` instead`);
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
