/**
 * SHA-256 for petctl's own names and digests: rate-limit state ids, import
 * journal names and headers. The one home for hashing.
 *
 * Through @noble/hashes (audited, pure JS, a few KB), loaded on first use:
 * every command hashes once the state file has entries, and loading
 * node:crypto would cost each start (docs/performance.md).
 */

/** The hex SHA-256 of `text` (UTF-8). */
export async function sha256Hex(text: string): Promise<string> {
  const [{ sha256 }, { bytesToHex, utf8ToBytes }] = await Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/utils.js')]);
  return bytesToHex(sha256(utf8ToBytes(text)));
}
