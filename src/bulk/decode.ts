/** The encoding: a BOM's, --encoding, else UTF-8; never guessed (docs/bulk-import.md, "What a spreadsheet saves"). */

/** The --encoding values. WHATWG reads latin1 and iso-8859-1 as windows-1252, as browsers do. */
export const INPUT_ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252', 'latin1', 'iso-8859-1', 'iso-8859-15', 'windows-1250', 'windows-1251', 'macintosh'] as const;
export type InputEncoding = (typeof INPUT_ENCODINGS)[number];

/** The input is not in its encoding from here on; the text before this point was yielded. */
export class UndecodableError extends Error {
  constructor(
    readonly encoding: string,
    /** The first byte that is not allowed there (UTF-8), when one byte says it. */
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

/** What a real U+FFFD is, as bytes, in the encodings that can hold one. */
const REPLACEMENT: Record<string, number[]> = { 'utf-8': [0xef, 0xbf, 0xbd], 'utf-16le': [0xfd, 0xff], 'utf-16be': [0xff, 0xfd] };

/** Decodes `chunks` (each valid only until the next is asked for); throws UndecodableError after the text before the first bad byte. */
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
    const chosen = encoding ?? encodingOfBom(start) ?? 'utf-8';
    const decoder = new TextDecoder(chosen);
    const bomBytes = encodingOfBom(start) === decoder.encoding ? (chosen === 'utf-8' ? 3 : 2) : 0;
    const stream: StreamPosition = { fed: 0, decoded: bomBytes, tail: Buffer.alloc(CARRY_BYTES), tailLength: 0 };

    const pieces = async function* () {
      for (let chunk: Buffer | undefined = start; chunk !== undefined; ) {
        for (let at = 0; at < chunk.length; at += PIECE_BYTES) yield chunk.subarray(at, at + PIECE_BYTES);
        const next = await iterator.next();
        chunk = next.done ? undefined : next.value;
      }
      yield undefined;
    };
    for await (const piece of pieces()) {
      const text = piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
      const broken = text.includes('\uFFFD') ? firstBroken(decoder.encoding, text, piece ?? Buffer.alloc(0), stream) : undefined;
      if (broken) {
        if (broken.before !== '') yield broken.before;
        throw broken.error;
      }
      if (piece !== undefined) keepTail(stream, piece, decoder.encoding === 'utf-8' ? Buffer.byteLength(text) : 2 * text.length);
      if (text !== '') yield text;
    }
  } finally {
    await iterator.return?.();
  }
}

interface StreamPosition {
  /** Bytes decoded before this piece. */
  fed: number;
  /** Where this piece's text starts among the bytes (UTF-8 and UTF-16, the BOM counted). */
  decoded: number;
  /** The last bytes before this piece: what the decoder may still hold. */
  tail: Buffer;
  tailLength: number;
}

function keepTail(stream: StreamPosition, piece: Buffer, textBytes: number): void {
  const bytes = piece.length >= CARRY_BYTES ? piece.subarray(piece.length - CARRY_BYTES) : Buffer.concat([stream.tail.subarray(0, stream.tailLength), piece]).subarray(-CARRY_BYTES);
  bytes.copy(stream.tail);
  stream.tailLength = bytes.length;
  stream.fed += piece.length;
  stream.decoded += textBytes;
}

/** Where a piece whose text holds U+FFFD stops being decodable, if it does: the file may hold a real U+FFFD, its bytes tell. */
function firstBroken(encoding: string, text: string, piece: Buffer, stream: StreamPosition): { error: UndecodableError; before: string } | undefined {
  const real = REPLACEMENT[encoding];
  const byteAt = (i: number) => (i >= 0 ? piece[i] : stream.tail[stream.tailLength + i]);
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    const before = text.slice(0, at);
    // Every character before it was decoded from its own bytes, so their length says where it stands.
    const offset = stream.decoded + (encoding === 'utf-8' ? Buffer.byteLength(before) : 2 * at) - stream.fed;
    if (real?.every((byte, k) => byteAt(offset + k) === byte)) continue;
    return { error: new UndecodableError(encoding, encoding === 'utf-8' ? byteAt(offset) : undefined), before };
  }
  return undefined;
}
