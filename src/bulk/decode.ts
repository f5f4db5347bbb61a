/** The encoding: a BOM's, --encoding, else UTF-8; never guessed (docs/bulk-import.md, "What a spreadsheet saves"). */

/** The --encoding values. WHATWG reads latin1 and iso-8859-1 as windows-1252, as browsers do. */
export const INPUT_ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'latin1', 'iso-8859-1', 'iso-8859-15', 'windows-1250', 'windows-1251', 'macintosh'] as const;
export type InputEncoding = (typeof INPUT_ENCODINGS)[number];

/** From here on the input is not in its encoding; the text before was yielded. */
export class UndecodableError extends Error {
  constructor(
    readonly encoding: string,
    /** The first byte not allowed there (UTF-8). */
    readonly byte?: number,
  ) {
    const name = encoding.toUpperCase();
    const which = byte === undefined ? '' : ` (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')})`;
    super(
      encoding === 'utf-8'
        ? `not UTF-8${which}; save the file as "CSV UTF-8", or give --encoding windows-1252`
        : `not ${name}: a broken character (the input ends inside one, or a lone surrogate); check --encoding`,
    );
  }
}

/** Text is decoded 1 KB at a time: rows cut from a piece keep it alive, and a short piece dies young (docs/performance.md). */
const PIECE_BYTES = 1024;
/** Bytes a decoder may hold back between pieces: an incomplete UTF-8 sequence, or UTF-16's odd byte and high surrogate. */
const CARRY_BYTES = 3;

function encodingOfBom(start: Buffer): InputEncoding | undefined {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return 'utf-8';
  if (start[0] === 0xff && start[1] === 0xfe) return 'utf-16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf-16be';
  return undefined;
}

const byteWidth = (encoding: string, text: string) =>
  encoding === 'utf-8' ? Buffer.byteLength(text) : encoding.startsWith('utf-16') ? 2 * text.length : text.length;

/** Throws UndecodableError after yielding the text before the first bad byte. */
export async function* decodeText(chunks: AsyncIterable<Buffer>, encoding?: InputEncoding): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    // The first bytes, copied (the chunk's buffer is reused), to read a BOM even from a trickle.
    let start = Buffer.alloc(0);
    while (start.length < CARRY_BYTES) {
      const next = await iterator.next();
      if (next.done) break;
      start = Buffer.concat([start, next.value]);
    }
    const decoder = new TextDecoder(encoding ?? encodingOfBom(start) ?? 'utf-8', { fatal: true });
    const name = decoder.encoding;
    // Bytes fed and not yet text, as the decoder holds them (less the BOM it drops); the last ones fed are `tail`.
    let held = encodingOfBom(start) === name ? -(name === 'utf-8' ? 3 : 2) : 0;
    let tail = Buffer.alloc(0);
    const pieces = async function* () {
      for (let chunk: Buffer | undefined = start; chunk !== undefined; ) {
        for (let at = 0; at < chunk.length; at += PIECE_BYTES) yield chunk.subarray(at, at + PIECE_BYTES);
        const next = await iterator.next();
        chunk = next.done ? undefined : next.value;
      }
      yield undefined;
    };
    for await (const piece of pieces()) {
      let text: string;
      try {
        text = piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
      } catch {
        const rest = piece ?? Buffer.alloc(0);
        const bytes = held < 0 ? rest.subarray(-held) : Buffer.concat([tail.subarray(tail.length - held), rest]);
        const broken = brokenAt(name, bytes);
        if (broken.before !== '') yield broken.before;
        throw broken.error;
      }
      if (piece !== undefined) {
        held += piece.length - byteWidth(name, text);
        tail = Buffer.concat([tail, piece.subarray(-CARRY_BYTES)]).subarray(-CARRY_BYTES);
      }
      if (text !== '') yield text;
    }
  } finally {
    await iterator.return?.();
  }
}

/** Where `bytes` (what the decoder held, then what it refused) stop being text: the longest start a decoder takes. */
function brokenAt(encoding: string, bytes: Buffer): { before: string; error: UndecodableError } {
  let before = '';
  for (let length = 1; length <= bytes.length; length++) {
    const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    try {
      before = decoder.decode(bytes.subarray(0, length), { stream: true });
    } catch {
      break;
    }
  }
  // What follows that text is the first byte of the character it holds back, or the byte it refused.
  const byte = encoding === 'utf-8' ? bytes[byteWidth(encoding, before)] : undefined;
  return { before, error: new UndecodableError(encoding, byte) };
}
