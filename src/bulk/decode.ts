/**
 * An import's bytes as text. Spreadsheets save "CSV" in the system's legacy code page (Excel on
 * Windows: windows-1252), and "Unicode text" as UTF-16 with a byte order mark, so the encoding is
 * never guessed from the letters: a BOM names it, else it is UTF-8 unless --encoding says
 * otherwise, and a byte that is not what the encoding allows stops the import before anything is
 * sent, rather than sending "Zo� Caf�". The platform's decoders (TextDecoder, the WHATWG
 * Encoding standard) do the work.
 */

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

/**
 * Text is decoded 1 KB at a time. The rows cut from a piece of text keep the whole piece alive
 * (V8 slices share their parent's characters); a short piece dies young, where a 32 KB one
 * outlives a scavenge or two and is promoted, growing the old generation until a full GC
 * (the peak RSS either way: docs/performance.md).
 */
const PIECE_BYTES = 1024;
/** Bytes a decoder may hold back between pieces: an incomplete UTF-8 sequence, or UTF-16's odd byte and high surrogate. */
const CARRY_BYTES = 3;

/** The encoding a byte order mark at the start names. */
function encodingOfBom(start: Buffer): InputEncoding | undefined {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return 'utf-8';
  if (start[0] === 0xff && start[1] === 0xfe) return 'utf-16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * Decodes `chunks` (each valid only until the next is asked for) in `encoding`, or as the BOM
 * says, or UTF-8; a BOM is dropped. Throws UndecodableError after yielding the text before the
 * first byte that is not in the encoding.
 */
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
    const stream = { fed: 0, units: 0, tail: Buffer.alloc(CARRY_BYTES), tailLength: 0 };

    const pieces = async function* () {
      for (let chunk: Buffer | undefined = start; chunk !== undefined; ) {
        for (let at = 0; at < chunk.length; at += PIECE_BYTES) yield chunk.subarray(at, at + PIECE_BYTES);
        const next = await iterator.next();
        chunk = next.done ? undefined : next.value;
      }
      // The end: what the decoder still holds.
      yield undefined;
    };
    for await (const piece of pieces()) {
      const text = piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
      const broken = text.includes('\uFFFD') ? firstBroken(decoder.encoding, text, piece ?? Buffer.alloc(0), stream, bomBytes) : undefined;
      if (broken) {
        if (broken.before !== '') yield broken.before;
        throw broken.error;
      }
      if (piece !== undefined) keepTail(stream, piece, text);
      if (text !== '') yield text;
    }
  } finally {
    await iterator.return?.();
  }
}

interface StreamPosition {
  /** Bytes decoded before this piece. */
  fed: number;
  /** UTF-16 units of text decoded before this piece. */
  units: number;
  /** The last bytes before this piece: what the decoder may still hold. */
  tail: Buffer;
  tailLength: number;
}

function keepTail(stream: StreamPosition, piece: Buffer, text: string): void {
  const bytes = piece.length >= CARRY_BYTES ? piece.subarray(piece.length - CARRY_BYTES) : Buffer.concat([stream.tail.subarray(0, stream.tailLength), piece]).subarray(-CARRY_BYTES);
  bytes.copy(stream.tail);
  stream.tailLength = bytes.length;
  stream.fed += piece.length;
  stream.units += text.length;
}

/**
 * Where a piece whose text holds U+FFFD stops being decodable, if it does: U+FFFD may also be a
 * character the file really holds (in UTF-8 or UTF-16), which the bytes tell apart.
 */
function firstBroken(encoding: string, text: string, piece: Buffer, stream: StreamPosition, bomBytes: number): { error: UndecodableError; before: string } | undefined {
  if (encoding === 'utf-8') {
    const tail = stream.tail.subarray(0, stream.tailLength);
    const bytes = Buffer.concat([tail.subarray(incompleteEnd(tail)), piece]);
    const bad = invalidUtf8At(bytes, piece.length === 0);
    if (bad === -1) return undefined;
    const before = new TextDecoder('utf-8', { ignoreBOM: stream.fed > 0 }).decode(bytes.subarray(0, bad));
    return { error: new UndecodableError(encoding, bytes[bad]), before };
  }
  const bigEndian = encoding === 'utf-16be';
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    if (encoding === 'utf-16le' || bigEndian) {
      // Every UTF-16 unit, a replacement included, comes from two bytes.
      const offset = bomBytes + 2 * (stream.units + at) - stream.fed;
      const byteAt = (i: number) => (i >= 0 ? piece[i] : stream.tail[stream.tailLength + i]);
      const [low, high] = bigEndian ? [byteAt(offset + 1), byteAt(offset)] : [byteAt(offset), byteAt(offset + 1)];
      if (low === 0xfd && high === 0xff) continue;
    }
    return { error: new UndecodableError(encoding), before: text.slice(0, at) };
  }
  return undefined;
}

/** Where an incomplete UTF-8 sequence at the end of `bytes` starts (bytes.length if none). */
function incompleteEnd(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - CARRY_BYTES); i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return bytes.length - i < length ? i : bytes.length;
  }
  return bytes.length;
}

/**
 * The first byte of the first ill-formed sequence (Unicode's table 3-7 of well-formed UTF-8), or
 * -1; a sequence cut by the end of `bytes` is ill-formed only at the end of the input.
 */
export function invalidUtf8At(bytes: Buffer, atEnd: boolean): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let follow: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) follow = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      follow = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      follow = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= follow; k++) {
      if (i + k >= bytes.length) return atEnd ? i : -1;
      const byte = bytes[i + k]!;
      if (k === 1 ? byte < low || byte > high : (byte & 0xc0) !== 0x80) return i;
    }
    i += follow + 1;
  }
  return -1;
}
