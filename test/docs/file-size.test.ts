import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/imports';

/** A file over 300 lines says why near its top, in a comment that says "Over 300 lines". */

const LIMIT = 300;

it(`the size of src/ files: every file over ${LIMIT} lines says why near its top`, () => {
  const unexplained = sourceFiles(SRC)
    .map((file) => ({ file: path.relative(SRC, file), text: fs.readFileSync(file, 'utf8') }))
    .filter(({ text }) => text.split('\n').length - 1 > LIMIT)
    .filter(({ text }) => !/Over 300 lines/.test(text.split('\n').slice(0, 60).join('\n')))
    .map(({ file }) => file);
  expect(unexplained).toEqual([]);
});
