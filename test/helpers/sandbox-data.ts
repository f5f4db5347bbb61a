import fs from 'node:fs';
import { parseLog } from '../../src/sandbox/pet-log';
import { parseJson, stringifyJson } from '../../src/schemas/json';

/**
 * The animals a sandbox data file holds, read the way the sandbox reads it (a
 * header line, then one animal per line; a torn last line is not an animal).
 * ids and categoryIds above 2^53 come back as bigint.
 */
export function storedPets(dataFile: string): Array<{ id: number | bigint; name: string; categoryId: number | bigint; status?: string }> {
  return parseLog(fs.readFileSync(dataFile)).pets.map((pet) => parseJson(pet.json) as { id: number | bigint; name: string; categoryId: number | bigint; status?: string });
}

/** Writes a sandbox data file (0600) holding the animals of `petsJson`, a JSON array as text: int64s stay exact. */
export function writeSandboxData(dataFile: string, petsJson: string): void {
  const pets = parseJson(petsJson) as unknown[];
  const lines = ['{"format":"petctl-sandbox-pets","version":2}', ...pets.map((pet) => stringifyJson(pet))];
  fs.writeFileSync(dataFile, `${lines.join('\n')}\n`, { mode: 0o600 });
}
