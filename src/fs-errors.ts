/** A failed read or write of petctl's files in words (its code where it helps a search), one table for all. */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'the disk quota is used up (EDQUOT)',
  EFBIG: 'the file is too large for this system (EFBIG)',
  EROFS: 'the file system is read-only (EROFS)',
  EIO: 'an input/output error (EIO)',
};

/** `overrides`: a code's reason in this context (a journal's missing directory is not a missing file). */
export function describeFsError(error: unknown, overrides: Record<string, string> = {}): string {
  const code = (error as { code?: string }).code;
  return (code && (overrides[code] ?? REASONS[code])) || (error as Error).message;
}
