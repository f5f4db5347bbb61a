/**
 * SHA-256 for petctl's own names and digests: rate-limit state ids, import
 * journal names and headers, an import's input. The one home for hashing.
 *
 * Short texts go through @noble/hashes (audited, pure JS, a few KB), loaded on
 * first use: every command hashes once the state file has entries, and loading
 * node:crypto cost ~4 ms of each start. A whole input file (up to hundreds of
 * MB) goes through node:crypto's native hash, which only bulk import loads.
 * Both are plain SHA-256, so digests written by earlier versions still match.
 */

/** The hex SHA-256 of `text` (UTF-8). */
export async function sha256Hex(text: string): Promise<string> {
  const [{ sha256 }, { bytesToHex, utf8ToBytes }] = await Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/utils.js')]);
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** An incremental SHA-256 over a stream of chunks (an import's input). */
export interface StreamDigest {
  update(chunk: Uint8Array): void;
  /** The hex digest; call once, after the last chunk. */
  hex(): string;
}

export function sha256Stream(): StreamDigest {
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
  return {
    update: (chunk) => void hash.update(chunk),
    hex: () => hash.digest('hex'),
  };
}
