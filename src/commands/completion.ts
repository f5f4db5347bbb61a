import type { Command } from 'commander';
import { type Shell, completeWords, completionScript, renderCompletion } from '../completion/complete';
import { SANDBOX_PROFILE } from '../config/config-file';
import type { Context } from '../context';
import { GUIDE_TOPICS } from './help';

export async function completionRun(options: { shell: Shell }, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(options.shell));
}

/** `petctl __complete -- <words…>`: the last word is the one being completed ('' after a space); the tree is walked as it is now. */
export async function completeRun(options: { words: string[]; program: Command }, ctx: Context): Promise<void> {
  const completion = await completeWords(options.program, options.words, { profileNames: () => profileNames(ctx), guideTopics: GUIDE_TOPICS });
  ctx.io.stdout.write(renderCompletion(completion));
}

/** The config's profile names (the built-in sandbox first). A damaged config still offers the sandbox; TAB never prints errors. */
async function profileNames(ctx: Context): Promise<string[]> {
  try {
    const store = await ctx.profiles();
    // A hand-edited name with white space would break the one-candidate-per-line answer.
    return store.list().map((profile) => profile.name).filter((name) => /^[^\s:]\S*$/.test(name));
  } catch {
    return [SANDBOX_PROFILE];
  }
}
