import type { Command } from 'commander';
import type { Invoke } from '../types';
import { registerAdd } from './add';
import { registerGet } from './get';
import { registerList } from './list';

export function registerPets(program: Command, invoke: Invoke): void {
  const pets = program.command('pets').helpCommand(false).description('browse and add animals up for adoption');
  registerList(pets, invoke);
  registerAdd(pets, invoke);
  registerGet(pets, invoke);
}
