/**
 * Terminal column widths, for fitting a table to the terminal. cli-table3
 * measures with string-width internally but does not export it, and importing
 * its transitive dependency would be undeclared, so this is a small equivalent:
 * wide East Asian characters and emoji take two columns, combining marks and
 * other zero-width characters none. Input is plain text (no ANSI codes): the
 * table measures and truncates before it colours.
 */

// Created on first use: building a Segmenter initialises ICU (~13 ms), which
// piped output (TSV, JSON) never needs.
let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

// East Asian Wide (W) and Fullwidth (F) blocks, the same main ranges
// is-fullwidth-code-point uses.
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1b000, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}/u;

function isWide(codePoint: number): boolean {
  return WIDE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

function graphemeWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  if (EMOJI.test(cluster)) return 2;
  return isWide(cluster.codePointAt(0) ?? 0) ? 2 : 1;
}

/** How many terminal columns `text` takes. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes(text)) width += graphemeWidth(segment);
  return width;
}

/**
 * Cuts `text` to at most `maxWidth` columns, ending in `…` when anything was cut.
 * Cuts between grapheme clusters, so an emoji or an accented letter is never split.
 */
export function truncateToWidth(text: string, maxWidth: number, ellipsis = '…'): string {
  if (displayWidth(text) <= maxWidth) return text;
  const budget = maxWidth - displayWidth(ellipsis);
  if (budget < 0) return '';
  let kept = '';
  let width = 0;
  for (const { segment } of graphemes(text)) {
    const next = graphemeWidth(segment);
    if (width + next > budget) break;
    kept += segment;
    width += next;
  }
  return kept + ellipsis;
}
