import { stringifyJson } from '../schemas/json';
import type { OutputFormat } from './format';

/**
 * A single object shown as "Label: value" lines in table format (on a TTY or
 * not: it is for reading), and as the object itself in json/ndjson. csv gets a
 * header of keys and one row.
 */
export interface DetailField {
  key: string;
  label: string;
  text: string;
}

export function renderDetails(fields: readonly DetailField[], object: Record<string, unknown>, format: OutputFormat): string {
  switch (format) {
    case 'table': {
      const width = Math.max(...fields.map((field) => field.label.length)) + 2;
      return fields.map((field) => `${`${field.label}:`.padEnd(width)}${field.text}\n`).join('');
    }
    case 'json':
      return `${stringifyJson(object, 2)}\n`;
    case 'ndjson':
      return `${stringifyJson(object)}\n`;
    case 'csv': {
      const quote = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
      return `${fields.map((field) => field.key).join(',')}\n${fields.map((field) => quote(field.text)).join(',')}\n`;
    }
  }
}
