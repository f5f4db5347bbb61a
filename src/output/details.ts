import { stringifyJson } from '../schemas/json';
import { renderCsv } from './csv';
import { safeText } from '../sanitize';
import type { OutputFormat } from './format';

/**
 * A single object shown as "Label: value" lines in table format (on a TTY or
 * not: it is for reading), and as the object itself in json/ndjson. csv gets a
 * header of keys and one row. A "Label: value" line is for a person, so its
 * value is made safe (sanitize.ts) wherever it goes.
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
      return fields.map((field) => `${`${field.label}:`.padEnd(width)}${safeText(field.text)}\n`).join('');
    }
    case 'json':
      return `${stringifyJson(object, 2)}\n`;
    case 'ndjson':
      return `${stringifyJson(object)}\n`;
    case 'csv':
      return renderCsv(
        fields.map((field) => ({ header: field.key, value: () => field.text })),
        [object],
      );
  }
}
