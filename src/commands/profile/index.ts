import type { Command } from 'commander';
import type { Invoke } from '../types';
import { registerProfileAdd } from './add';
import { registerProfileList } from './list';
import { registerProfileRemove } from './remove';
import { registerProfileSet } from './set';
import { registerProfileShow } from './show';
import { registerProfileUse } from './use';

export { profileAddRun } from './add';
export { profileListRun } from './list';
export { profileRemoveRun } from './remove';
export { profileSetRun } from './set';
export { profileShowRun } from './show';
export { profileUseRun } from './use';

export function registerProfile(program: Command, invoke: Invoke): void {
  const profile = program.command('profile').helpCommand(false).description('manage profiles: one base URL and one API key each');
  registerProfileList(profile, invoke);
  registerProfileShow(profile, invoke);
  registerProfileAdd(profile, invoke);
  registerProfileSet(profile, invoke);
  registerProfileUse(profile, invoke);
  registerProfileRemove(profile, invoke);
}
