import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A file near 300 lines is a sign to split it by concern (the style guide). One that stays
 * over says why near its top, in a comment that says "Over 300 lines".
 */

const SRC = path.join(__dirname, '..', '..', 'src');
const LIMIT = 300;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('the size of src/ files', () => {
  it(`every file over ${LIMIT} lines says why near its top`, () => {
    const unexplained = sourceFiles(SRC)
      .map((file) => ({ file: path.relative(SRC, file), text: fs.readFileSync(file, 'utf8') }))
      .filter(({ text }) => text.split('\n').length - 1 > LIMIT)
      .filter(({ text }) => !/Over 300 lines/.test(text.split('\n').slice(0, 60).join('\n')))
      .map(({ file }) => file);
    expect(unexplained).toEqual([]);
  });
});
