import fs from 'node:fs';
import { parseJson, stringifyJson } from '../../src/schemas/json';

/** The animals a sandbox data file holds, read as the sandbox reads it; ids above 2^53 come back as bigint. */
export function storedPets(dataFile: string): Array<{ id: number | bigint; name: string; categoryId: number | bigint; status?: string }> {
  const [header, ...lines] = fs.readFileSync(dataFile, 'utf8').split('\n');
  if (header !== '{"format":"petctl-sandbox-pets","version":2}') throw new Error(`${dataFile} is not a sandbox data file`);
  // The text after the last newline (none, or a line a crash cut short) is not an animal.
  return lines.slice(0, -1).map((line) => parseJson(line) as { id: number | bigint; name: string; categoryId: number | bigint; status?: string });
}

/** Writes a sandbox data file (0600) holding the animals of `petsJson`, a JSON array as text: int64s stay exact. */
export function writeSandboxData(dataFile: string, petsJson: string): void {
  const pets = parseJson(petsJson) as unknown[];
  const lines = ['{"format":"petctl-sandbox-pets","version":2}', ...pets.map((pet) => stringifyJson(pet))];
  fs.writeFileSync(dataFile, `${lines.join('\n')}\n`, { mode: 0o600 });
}
