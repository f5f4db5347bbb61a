import { FailureError } from '../errors';

/**
 * Telling a damaged journal from one a crash merely cut short. petctl writes
 * every journal line whole and in one piece, so a write cut short (petctl
 * killed, a full disk) leaves the start of a line, and the next write begins
 * a new line after it. Such a line recorded nothing an import relied on: a
 * "sent" is durable before its request goes out, so a torn "created" leaves
 * its row at "sent", the safer state. Anything else that is not an entry
 * (zeros a disk left after a crash, a line edited by hand) may have been a
 * "created": reading past it would send that animal again.
 */

/** A journal line that is neither an entry nor a write cut short: the import stops before anything is sent (exit 1). */
export class JournalDamagedError extends FailureError {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(
      `the journal ${file} is damaged at line ${line}; rows it recorded may be sent twice. Move it aside and rerun with --new only if you know which animals exist`,
      { code: 'journal_damaged', hint: 'petctl pets list --all shows the animals the service holds' },
    );
  }
}

/** How every journal's first line begins. */
export const HEADER_START = '{"petctlImportJournal":';

/**
 * Whether a line that is not an entry is what a write cut short leaves:
 * nothing, or the start of a line as petctl writes it, which begins with
 * `start` (every entry's first field) and stops before its JSON is whole.
 */
export function isWriteCutShort(line: string, start: string): boolean {
  return line === '' || ((start.startsWith(line) || line.startsWith(start)) && scanJson(line) === 'cut');
}

/**
 * Whether a journal without a whole first line is a creation cut short, so
 * that nothing was recorded in it yet: empty, the start of a header, or
 * zeros where a header (`headerBytes` long at most) was being written.
 */
export function isCreationCutShort(head: Buffer, headerBytes: number): boolean {
  if (head.every((byte) => byte === 0)) return head.length <= headerBytes;
  const text = head.toString('utf8');
  return HEADER_START.startsWith(text) || text.startsWith(HEADER_START);
}

/**
 * Whether a first line that is not a journal header is a journal's damaged
 * header rather than a file that never was a journal: it holds zeros, it is
 * a header's start that does not parse, or journal entries follow it.
 * `isEntry`: whether a line is an entry of either format.
 */
export function isDamagedHeader(line: string, next: string | undefined, isEntry: (line: string) => boolean): boolean {
  if (line.includes('\0')) return true;
  if (line.startsWith(HEADER_START) && scanJson(line) !== 'whole') return true;
  return next !== undefined && isEntry(next);
}

/**
 * The lines of a journal, each with whether a newline ended it: only the
 * file's last line can lack one, and then it is a write cut short, whatever
 * it holds (zeros too, where a crash left them before the write was synced).
 */
export async function* journalLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ text: string; ended: boolean }> {
  let pending: Buffer[] = [];
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, end));
      yield { text: Buffer.concat(pending).toString('utf8'), ended: true };
      pending = [];
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield { text: Buffer.concat(pending).toString('utf8'), ended: false };
}

type Expect = 'value' | 'keyOrClose' | 'key' | 'colon' | 'valueOrClose' | 'commaOrClose' | 'end';

const WHOLE_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** The start of a number: each part may stop anywhere, but not skip ahead ("1." is a start, "1.e5" is not). */
const NUMBER_START = /^-?(?:(?:0|[1-9]\d*)(?:\.(?:\d+(?:[eE][+-]?\d*)?)?|[eE][+-]?\d*)?)?$/;
const LITERALS = ['true', 'false', 'null'];
/** A number or a literal: the characters up to the next delimiter. */
const TOKEN = /[-+.\w]+/y;

/**
 * Reads `text` as JSON (RFC 8259): `whole` when it is one complete value,
 * `cut` when it is the start of one that stops short, `invalid` when it goes
 * wrong before its end.
 */
function scanJson(text: string): 'whole' | 'cut' | 'invalid' {
  const stack: string[] = [];
  let expect = 'value' as Expect;
  // What may follow a value: another in its container, or nothing at all.
  const afterValue = (): Expect => (stack.length === 0 ? 'end' : 'commaOrClose');
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i += 1;
      continue;
    }
    if (expect === 'end') return 'invalid';
    if (expect === 'colon') {
      if (c !== ':') return 'invalid';
      expect = 'value';
      i += 1;
      continue;
    }
    if (expect === 'commaOrClose') {
      const open = stack.at(-1);
      if (c === ',') expect = open === '{' ? 'key' : 'value';
      else if ((c === '}' && open === '{') || (c === ']' && open === '[')) {
        stack.pop();
        expect = afterValue();
      } else return 'invalid';
      i += 1;
      continue;
    }
    if ((c === '}' && expect === 'keyOrClose') || (c === ']' && expect === 'valueOrClose')) {
      stack.pop();
      expect = afterValue();
      i += 1;
      continue;
    }
    const isKey = expect === 'key' || expect === 'keyOrClose';
    if (c === '"') {
      const end = stringEnd(text, i + 1);
      if (end === 'invalid') return 'invalid';
      if (end === 'cut') return 'cut';
      i = end;
      expect = isKey ? 'colon' : afterValue();
      continue;
    }
    if (isKey) return 'invalid';
    if (c === '{' || c === '[') {
      stack.push(c);
      expect = c === '{' ? 'keyOrClose' : 'valueOrClose';
      i += 1;
      continue;
    }
    TOKEN.lastIndex = i;
    const token = TOKEN.exec(text)?.[0];
    if (token === undefined) return 'invalid';
    const atEnd = i + token.length === text.length;
    const whole = WHOLE_NUMBER.test(token) || LITERALS.includes(token);
    // At the end, a number or a literal may be one cut short ("1.", "tr").
    const start = atEnd && (NUMBER_START.test(token) || LITERALS.some((word) => word.startsWith(token)));
    if (!whole && !start) return 'invalid';
    if (atEnd) return whole && stack.length === 0 ? 'whole' : 'cut';
    i += token.length;
    expect = afterValue();
  }
  return expect === 'end' ? 'whole' : 'cut';
}

/** Where the string whose content starts at `from` ends (after its closing quote), or whether it is cut short or invalid. */
function stringEnd(text: string, from: number): number | 'cut' | 'invalid' {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    // Control characters are escaped in JSON; a raw one (a zero byte included) is not JSON.
    if (c < 0x20) return 'invalid';
    if (c !== 0x5c) continue;
    const escape = text[i + 1];
    if (escape === undefined) return 'cut';
    if (escape === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[\da-fA-F]*$/.test(hex)) return 'invalid';
      if (hex.length < 4) return 'cut';
      i += 5;
    } else if ('"\\/bfnrt'.includes(escape)) i += 1;
    else return 'invalid';
  }
  return 'cut';
}
