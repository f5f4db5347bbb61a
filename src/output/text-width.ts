import stringWidth from 'string-width';

/**
 * Terminal column widths, for fitting a table or a guide to the terminal:
 * string-width's (wide East Asian characters and emoji two columns, combining
 * marks and other zero-width characters none). Input is plain text (no ANSI
 * codes): the table measures and truncates before it colours. Loaded only with
 * a table or a guide: string-width builds its grapheme segmenter as it loads,
 * which piped output never needs (docs/performance.md).
 */

/** How many terminal columns `text` takes. */
export const displayWidth: (text: string) => number = stringWidth;

let segmenter: Intl.Segmenter | undefined;

/**
 * Cuts `text` to at most `maxWidth` columns, ending in `…` when anything was cut.
 * Cuts between grapheme clusters, so an emoji or an accented letter is never split.
 */
export function truncateToWidth(text: string, maxWidth: number, ellipsis = '…'): string {
  if (stringWidth(text) <= maxWidth) return text;
  const budget = maxWidth - stringWidth(ellipsis);
  if (budget < 0) return '';
  segmenter ??= new Intl.Segmenter();
  let kept = '';
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    width += stringWidth(segment);
    if (width > budget) break;
    kept += segment;
  }
  return kept + ellipsis;
}
