import { describe, expect, test } from 'vitest';
import { safeLine, safeLines, safeText } from '../src/sanitize';

const ESC = '\u001b';
const BEL = '\u0007';

describe('safeText', () => {
  test.each([
    ['plain text stays as it is', 'Rex the dog, 3 yrs', 'Rex the dog, 3 yrs'],
    ['letters of any script stay', 'Ünal 犬 🐕 ñ', 'Ünal 犬 🐕 ñ'],
    ['a backslash stays', 'C:\\pets', 'C:\\pets'],
    ['OSC 0 (window title)', `bad ${ESC}]0;PWNED${BEL}`, 'bad \\x1b]0;PWNED\\x07'],
    ['OSC 52 (clipboard)', `${ESC}]52;c;cm0gLXJmIH4gIw==${BEL}`, '\\x1b]52;c;cm0gLXJmIH4gIw==\\x07'],
    ['CSI clear screen', `${ESC}[2J`, '\\x1b[2J'],
    ['carriage return', 'real\rEVIL', 'real\\rEVIL'],
    ['newline and tab', 'a\nb\tc', 'a\\nb\\tc'],
    ['NUL, backspace, DEL', '\u0000\u0008\u007f', '\\x00\\x08\\x7f'],
    ['C1 controls (8-bit CSI, OSC)', '\u009b2J\u009d0;x', '\\x9b2J\\x9d0;x'],
    ['bidi override U+202E', 'txt.\u202eexe', 'txt.\\u202eexe'],
    ['every bidi control', '\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069', '\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069'],
    ['zero-width joiner in an emoji stays', '👩\u200d💻', '👩\u200d💻'],
  ])('%s', (_name, input, shown) => {
    expect(safeText(input)).toBe(shown);
  });

  test('keeps tabs and newlines only where the format allows: safeLine a tab, never a break; safeLines breaks', () => {
    const text = `a\tb\nc\r${ESC}`;
    expect(safeText(text, { tab: true })).toBe('a\tb\\nc\\r\\x1b');
    expect(safeText(text, { newline: true })).toBe('a\\tb\nc\\r\\x1b');
    expect(safeText(text, { tab: true, newline: true })).toBe('a\tb\nc\\r\\x1b');
    expect(safeLine(`a\tb\nerror: forged`)).toBe('a\tb\\nerror: forged');
    expect(safeLines(`one${ESC}\ntwo\r\n`)).toBe('one\\x1b\ntwo\\r\n');
  });

  test('json style writes \\u escapes, so a JSON line stays the same JSON value', () => {
    const value = { message: `x\u009b\u202e${ESC}` };
    const line = safeText(JSON.stringify(value), { json: true });
    expect(line).toBe('{"message":"x\\u009b\\u202e\\u001b"}');
    expect(JSON.parse(line)).toEqual(value);
  });

  test('no control or bidi character survives, whatever the input', () => {
    let all = '';
    for (let code = 0; code <= 0x2070; code++) all += String.fromCharCode(code);
    expect(safeText(all)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });
});
