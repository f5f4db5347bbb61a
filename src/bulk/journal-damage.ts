import { FailureError } from '../errors';

/**
 * Telling a damaged journal from one a crash merely cut short: a write cut short leaves the start of
 * a line, which recorded nothing an import relied on; anything else that is not an entry may have been
 * a "created" (docs/bulk-import.md, "A damaged journal").
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

/** Whether a line that is not an entry is what a write cut short leaves: nothing, or a start of `start…` whose JSON is not whole. */
export function isWriteCutShort(line: string, start: string): boolean {
  return line === '' || ((start.startsWith(line) || line.startsWith(start)) && scanJson(line) === 'cut');
}

/** Whether a journal without a whole first line is a creation cut short: empty, a header's start, or zeros no longer than a header. */
export function isCreationCutShort(head: Buffer, headerBytes: number): boolean {
  if (head.every((byte) => byte === 0)) return head.length <= headerBytes;
  const text = head.toString('utf8');
  return HEADER_START.startsWith(text) || text.startsWith(HEADER_START);
}

/** Whether a first line that is no header is a damaged one (zeros, a header's start that does not parse, entries after it), not someone's file. */
export function isDamagedHeader(line: string, next: string | undefined, isEntry: (line: string) => boolean): boolean {
  if (line.includes('\0')) return true;
  if (line.startsWith(HEADER_START) && scanJson(line) !== 'whole') return true;
  return next !== undefined && isEntry(next);
}

/** The lines of a journal, each with whether a newline ended it (the last one may lack it: a write cut short, whatever it holds). */
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

/** `text` as JSON: `whole`, `cut` (one of the few ways to end it makes it whole, as the platform's parser judges) or `invalid`. */
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
