import { stringifyJson } from '../schemas/json';
import { renderCsv } from './csv';
import { safeText } from '../sanitize';
import type { OutputFormat } from '../globals';

type DetailField = { key: string; label: string; text: string };

/** One object as "Label: value" lines for a person (made safe, piped too), the object in json and ndjson, keys and a row in csv. */
export function renderDetails(fields: readonly DetailField[], object: Record<string, unknown>, format: OutputFormat): string {
  if (format === 'json' || format === 'ndjson') return `${stringifyJson(object, format === 'json' ? 2 : undefined)}\n`;
  if (format === 'csv') return renderCsv(fields.map((field) => ({ header: field.key, value: () => field.text })), [object]);
  const width = Math.max(...fields.map((field) => field.label.length)) + 2;
  return fields.map((field) => `${`${field.label}:`.padEnd(width)}${safeText(field.text)}\n`).join('');
}
