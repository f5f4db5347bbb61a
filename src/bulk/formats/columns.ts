/** Which CSV column fills which NewPet field. No zod: the flag parser (commands/parsers.ts) uses it at start-up. */

const SENT_FIELDS = ['name', 'categoryId', 'status'] as const;
export type SentField = (typeof SENT_FIELDS)[number];

export interface ColumnMapping {
  field: SentField;
  header: string;
}

/** How a header is compared with a field's name: case, spaces, `_` and `-` do not count. */
const looseKey = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/** How a header the user names is compared with the file's. */
export const columnKey = (name: string) => name.trim().toLowerCase();

export function sentField(name: string): SentField | undefined {
  const key = looseKey(name);
  return SENT_FIELDS.find((field) => looseKey(field) === key);
}

/** The field a header fills: the one --column gives it, else the one its name says unless --column gives that field another header. */
export function headerField(header: string, mappings: readonly ColumnMapping[] = []): SentField | undefined {
  const mapped = mappings.find((mapping) => columnKey(mapping.header) === columnKey(header));
  if (mapped) return mapped.field;
  const named = sentField(header);
  return mappings.some((mapping) => mapping.field === named) ? undefined : named;
}

/** A few of the spellings a field is found by, for the message of a header that lacks it. */
export function spellings(field: SentField): string[] {
  const words = field.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
  const title = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ');
  return [...new Set([field, words.join('_'), words.join('-'), title, title.toUpperCase()])];
}
