// The shape every benchmark returns, and the one table `npm run bench` prints.
//
// A benchmark is a module bench/<name>.mjs that exports
//   export async function run({ quick }) => Row[]
// and, run directly (`node bench/<name>.mjs [--quick]`), prints its own rows
// with printRows. bench/index.mjs runs them all and prints one table.
//
// Row: {
//   figure:   what was measured, e.g. "petctl pets list -o json (wall, median)"
//   value:    the measured number
//   unit:     "ms", "req/s", "MB", "x", ...
//   baseline: optional { name, value }: what it is compared with, measured in the same run
//   ratio:    optional number, value / baseline.value (or as the target defines it)
//   target:   optional text, e.g. "<= 1.5x"
//   met:      optional boolean: whether the target is met (never fails the run)
//   note:     optional text
// }

function formatNumber(value) {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function rowCells(row) {
  return [
    row.figure,
    `${formatNumber(row.value)} ${row.unit}`,
    row.baseline ? `${row.baseline.name}: ${formatNumber(row.baseline.value)} ${row.unit}` : '',
    row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}x`,
    row.target ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ];
}

const HEADER = ['figure', 'value', 'baseline (same run)', 'ratio', 'target', 'met'];

/** Prints rows as one aligned table (plain text, so it reads the same in CI logs). */
export function printRows(rows) {
  const table = [HEADER, ...rows.map(rowCells)];
  const widths = HEADER.map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  for (const [index, cells] of table.entries()) {
    console.log(cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd());
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  }
  for (const row of rows) if (row.note) console.log(`- ${row.figure}: ${row.note}`);
}

/** For `node bench/<name>.mjs [--quick]`: runs one benchmark and prints its rows. */
export async function runStandalone(run) {
  const quick = process.argv.includes('--quick');
  printRows(await run({ quick }));
}
