import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from '../context';
import { type GuideBlock, renderGuide } from '../output/guide';
import { writePaged } from '../output/pager';

/** `petctl help <topic>`: the guide the build wrote beside the bundle (dist/guides/), through the pager on a terminal. */
export async function guideRun(topic: string, ctx: Context): Promise<void> {
  const blocks = JSON.parse(readFileSync(path.join(__dirname, 'guides', `${topic}.json`), 'utf8')) as GuideBlock[];
  const columns = Number(ctx.env.COLUMNS);
  // Off a terminal $COLUMNS, else 80, as man does.
  const width = ctx.terminal.stdoutWidth() ?? (Number.isInteger(columns) && columns > 0 ? columns : 80);
  await writePaged(renderGuide(blocks, width), ctx);
}
