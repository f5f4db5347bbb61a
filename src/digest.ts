/** The hex SHA-256 of `text`: not node:crypto, which would cost each start (docs/performance.md). */
export async function sha256Hex(text: string): Promise<string> {
  const [{ sha256 }, { bytesToHex, utf8ToBytes }] = await Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/utils.js')]);
  return bytesToHex(sha256(utf8ToBytes(text)));
}
