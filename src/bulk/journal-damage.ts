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

/** What may end a line cut short outside a string, before its open containers close: a value, a key and its value, a colon and a value, a literal's rest. */
const ENDINGS = ['', '0', '"":0', ':0', 'rue', 'ue', 'e', 'alse', 'lse', 'se', 'ull', 'll', 'l'];
/** What may end it inside a string (after a backslash, or inside a \u escape), the string a key or a value. */
const STRING_ENDINGS = ['"', 'n"', '0"', '00"', '000"', '0000"'].flatMap((end) => [end, `${end}:0`]);

/** `text` parsed as JSON; undefined when it is not JSON (no JSON text parses to undefined). */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const parses = (text: string) => jsonValue(text) !== undefined;

/**
 * Reads `text` as JSON (RFC 8259): `whole` when it is one complete value, `cut` when it is the
 * start of one that stops short, `invalid` when it goes wrong before its end. The platform's
 * parser judges: a start is `cut` when one of the few ways to end it makes it whole.
 */
function scanJson(text: string): 'whole' | 'cut' | 'invalid' {
  if (parses(text)) return 'whole';
  const closers: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') closers.unshift(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') closers.shift();
  }
  const close = closers.join('');
  return (inString ? STRING_ENDINGS : ENDINGS).some((end) => parses(text + end + close)) ? 'cut' : 'invalid';
}
