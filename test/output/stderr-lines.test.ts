import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeContext, runMain } from '../helpers/terminal';

/** Every line on stderr, on a terminal or not, shows outside text's control and bidi characters as visible escapes. */

const HOSTILE = 'x\u001b]0;PWNED\u0007\u001b]52;c;eA==\u0007\u001b[2J\rEVIL\u202e\u009b2J\nerror: forged';
const SHOWN = 'x\\x1b]0;PWNED\\x07\\x1b]52;c;eA==\\x07\\x1b[2J\\rEVIL\\u202e\\x9b2J\\nerror: forged';
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('lines on stderr', () => {
  it('an error quoting outside text is one line, its controls as escapes; with -o json the same JSON value, C1 and bidi as \\u', async () => {
    const { code, stderr } = await runMain(['pets', 'get', HOSTILE]);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(`error: petId must be a whole number, not "${SHOWN}" (usage_error)`);
    expect(stderr).not.toMatch(UNSAFE);
    expect(stderr).not.toMatch(/^error: forged/m);
    const json = (await runMain(['-o', 'json', 'pets', 'get', HOSTILE])).stderr;
    expect(json.endsWith('\n')).toBe(true);
    expect(json.slice(0, -1)).not.toMatch(UNSAFE);
    expect(json).toContain('\\u202e\\u009b2J');
    expect((JSON.parse(json) as { message: string }).message).toBe(`petId must be a whole number, not "${HOSTILE}"`);
  });

  it('notices, warnings, waits and -v lines from the context; --quiet silences all but a line asked for', (t) => {
    const { ctx, io } = fakeContext(t);
    ctx.notice(`ignoring columns: ${HOSTILE}`);
    ctx.warn(`cannot use the shared rate-limit state: ${HOSTILE}`);
    ctx.line(`< ${HOSTILE}`);
    ctx.announceWait(5_000, `waiting: ${HOSTILE}`);
    expect(io.stderr.text()).toBe(
      `ignoring columns: ${SHOWN}\nwarning: cannot use the shared rate-limit state: ${SHOWN}\n< ${SHOWN}\npetctl: waiting: ${SHOWN}\n`,
    );
    const quiet = fakeContext(t, { globals: { quiet: true } });
    quiet.ctx.notice('n');
    quiet.ctx.warn('w');
    quiet.ctx.line(`line 2 (row 1): ${HOSTILE}`);
    expect(quiet.io.stderr.text()).toBe(`line 2 (row 1): ${SHOWN}\n`);
  });

  it('only the places that make text safe write to stderr', () => {
    // Each of these writes through sanitize.ts, or writes only petctl's own text (the key prompt).
    const allowed = ['main.ts', 'terminal.ts', 'input/prompts.ts', 'commands/sandbox.ts'];
    const src = path.join(import.meta.dirname, '../../src');
    const writers = (fs.readdirSync(src, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && /stderr\.write\(|process\.stderr/.test(fs.readFileSync(path.join(src, file), 'utf8')))
      .map((file) => file.split(path.sep).join('/'))
      .sort();
    expect(writers).toEqual([...allowed].sort());
  });
});
