import type { Command } from 'commander';
import type { Invoke } from '../types';
import { registerLogin } from './login';
import { registerLogout } from './logout';
import { registerStatus } from './status';

export function registerAuth(program: Command, invoke: Invoke): void {
  const auth = program.command('auth').helpCommand(false).description("store, check and remove the profile's API key");
  registerLogin(auth, invoke);
  registerStatus(auth, invoke);
  registerLogout(auth, invoke);
}
