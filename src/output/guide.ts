import displayWidth from 'string-width';

/** One block of a guide, as scripts/guides.mjs makes it from the Markdown page. */
export type GuideBlock =
  | { heading: string; level: number }
  | { paragraph: string }
  | { item: string; marker: string; depth: number }
  | { code: string }
  | { table: string[][] };

/** A guide laid out as plain text for a terminal `width` columns wide (never under 40). */
export function renderGuide(blocks: GuideBlock[], width: number): string {
  const columns = Math.max(40, width);
  const text = blocks.map((block, index) => {
    const previous = blocks[index - 1];
    // A list's items follow one another; every other block stands apart by a blank line.
    const gap = previous === undefined ? '' : 'item' in block && 'item' in previous ? '\n' : '\n\n';
    return gap + renderBlock(block, columns);
  });
  return `${text.join('')}\n`;
}

function renderBlock(block: GuideBlock, columns: number): string {
  if ('heading' in block) return block.heading;
  if ('paragraph' in block) return wrap(block.paragraph, columns).join('\n');
  if ('item' in block) {
    const indent = ' '.repeat(2 + block.depth * 2);
    const marker = `${block.marker} `;
    return hanging(block.item, `${indent}${marker}`, ' '.repeat(indent.length + marker.length), columns);
  }
  if ('code' in block) return block.code.split('\n').map((line) => `    ${line}`).join('\n');
  return renderTable(block.table, columns);
}

/** Words filled into lines of at most `width` columns; a word longer than a line stands alone. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    if (line !== '' && displayWidth(line) + 1 + displayWidth(word) > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

function hanging(text: string, first: string, rest: string, width: number): string {
  return wrap(text, width - rest.length)
    .map((line, index) => `${index === 0 ? first : rest}${line}`)
    .join('\n');
}

/** Columns when all but the last fit in half the width (the last wrapped beside them), else a record per row, any width can show. */
function renderTable(rows: string[][], width: number): string {
  const columnCount = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columnCount }, (_, column) => Math.max(...rows.map((row) => displayWidth(row[column] ?? ''))));
  const leading = widths.slice(0, -1).reduce((sum, cell) => sum + cell + 2, 0);
  if (leading <= width / 2) {
    const pad = (cell: string, column: number) => cell + ' '.repeat(widths[column]! - displayWidth(cell) + 2);
    const left = (row: string[]) => row.slice(0, -1).map(pad).join('');
    const indent = ' '.repeat(leading);
    return rows.map((row) => hanging(row[columnCount - 1] ?? '', left(row), indent, width).trimEnd()).join('\n');
  }
  const [header = [], ...body] = rows;
  return body
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? hanging(cell, '', '', width) : hanging(`${header[column] ?? ''}: ${cell}`, '  ', '    ', width)))
        .join('\n'),
    )
    .join('\n\n');
}
