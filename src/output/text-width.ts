import stringWidth from 'string-width';

/** Terminal column widths of plain text (string-width), loaded only with a table or a guide (docs/performance.md). */

/** How many terminal columns `text` takes. */
export const displayWidth: (text: string) => number = stringWidth;

let segmenter: Intl.Segmenter | undefined;

/** `text` cut between grapheme clusters to at most `maxWidth` columns, ending in `…` when anything was cut. */
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
