import { Chalk } from 'chalk';
import Table from 'cli-table3';
import { safeText } from '../sanitize';
import type { ColorLevel } from '../terminal';
import displayWidth from 'string-width';
import { type Column, MISSING_VALUE } from './formats';

/** The table a person reads on a terminal; records.ts loads it only when stdout is one (docs/performance.md). Widths are string-width's. */

const COLUMN_GAP = 2;
/** A truncated column keeps at least this many columns (or its header's width). */
const MIN_TRUNCATED_WIDTH = 5;

// gh-like borderless layout: a bold header row, columns two spaces apart, no rules; a copied line still reads as data.
const NO_BORDERS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '',
  right: '', 'right-mid': '', middle: ' '.repeat(COLUMN_GAP),
};

/** The table for a terminal, '' for no rows. Rows never wrap: truncatable columns are cut with `…` (widest first) to
 * `width`, down to their minimum. A cell shows every control and bidi character as an escape (sanitize.ts), tabs and
 * newlines too. */
export function renderTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], { level, width }: { level: ColorLevel; width?: number }): string {
  if (rows.length === 0) return '';
  // Fixed at the level src/terminal.ts decides, never chalk's own guess from process.env.
  const chalk = new Chalk({ level });
  const texts = rows.map((row) => columns.map((column) => safeText(column.value(row) ?? MISSING_VALUE)));
  const widths = fitColumnWidths(columns, texts, width);
  const table = new Table({
    head: columns.map((column) => (level > 0 ? chalk.bold(column.header) : column.header)),
    chars: NO_BORDERS,
    // Empty styles keep cli-table3 from loading @colors/colors, which decides on colour from process.argv and env.
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
    wordWrap: false,
  });
  rows.forEach((row, rowIndex) => {
    table.push(
      columns.map((column, columnIndex) => {
        const text = truncateToWidth(texts[rowIndex]![columnIndex]!, widths[columnIndex]!);
        const style = level > 0 ? column.color?.(row, chalk) : undefined;
        return style ? style(text) : text;
      }),
    );
  });
  // cli-table3 pads the last column too; trailing blanks only confuse copy and paste.
  const lines = table.toString().split('\n');
  return `${lines.map((line) => line.trimEnd()).join('\n')}\n`;
}

const segmenter = new Intl.Segmenter();

/** Cut between grapheme clusters, ending in `…` when anything was cut (a cut column is never under 5 wide). */
export function truncateToWidth(text: string, maxWidth: number): string {
  if (displayWidth(text) <= maxWidth) return text;
  const budget = maxWidth - 1;
  let kept = '';
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    width += displayWidth(segment);
    if (width > budget) break;
    kept += segment;
  }
  return `${kept}…`;
}

function fitColumnWidths<Row>(columns: readonly Column<Row>[], texts: readonly string[][], terminalWidth: number | undefined): number[] {
  const widths = columns.map((column, index) => Math.max(displayWidth(column.header), ...texts.map((cells) => displayWidth(cells[index]!))));
  if (terminalWidth === undefined) return widths;
  const anyMarked = columns.some((column) => column.truncate);
  const minimums = columns.map((column, index) => Math.min(widths[index]!, Math.max(displayWidth(column.header), MIN_TRUNCATED_WIDTH)));
  let overflow = widths.reduce((sum, w) => sum + w, 0) + COLUMN_GAP * (columns.length - 1) - terminalWidth;
  while (overflow > 0) {
    let widest = -1;
    columns.forEach((column, index) => {
      if ((anyMarked && !column.truncate) || widths[index]! <= minimums[index]!) return;
      if (widest === -1 || widths[index]! > widths[widest]!) widest = index;
    });
    // Nothing left to give: the line stays too long rather than wrapping a row.
    if (widest === -1) break;
    widths[widest] = widths[widest]! - 1;
    overflow -= 1;
  }
  return widths;
}
