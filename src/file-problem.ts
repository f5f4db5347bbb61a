/** What is wrong with a file petctl would write or trust, as file-safety.ts finds it: a fact, worded below. */
export type FileProblem =
  | { kind: 'symlink' }
  | { kind: 'not_regular' }
  | { kind: 'not_directory' }
  | { kind: 'other_owner'; uid: number }
  | { kind: 'writable_by_others'; mode: number }
  | { kind: 'not_journal' };

/** A FileProblem in words, of `subject`: "it" (after the file's name), or the file's name itself. */
export function describeProblem(problem: FileProblem, subject = 'it'): string {
  if (problem.kind === 'other_owner') return `${subject} is owned by another user (uid ${problem.uid})`;
  if (problem.kind === 'writable_by_others') return `other users can write to ${subject} (mode 0${(problem.mode & 0o777).toString(8).padStart(3, '0')})`;
  const words = { symlink: 'is a symbolic link', not_regular: 'is not a regular file', not_directory: 'is not a directory' } as const;
  if (problem.kind !== 'not_journal') return `${subject} ${words[problem.kind]}`;
  return `${subject} is not a petctl import journal (its first line is not a journal header), so petctl does not write into it`;
}

/** What to do about it, for UnsafeFileError's hint. */
export function unsafeFileHint(file: string, problem: FileProblem): string {
  if (problem.kind === 'not_journal') return 'choose another --journal path';
  if (problem.kind === 'writable_by_others') return `if its content is yours, run chmod go-w ${file}; otherwise move it away`;
  return 'petctl uses only regular files and directories you own: move it away, or choose another path';
}
