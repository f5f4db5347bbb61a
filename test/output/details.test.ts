import { describe, expect, it } from 'vitest';
import { renderDetails } from '../../src/output/formats';

const fields = [
  { key: 'profile', label: 'Profile', text: 'prod (active)' },
  { key: 'note', label: 'Note', text: 'says "hi", twice' },
];
const object = { profile: 'prod', note: 'says "hi", twice', count: 9007199254740993n };
const url = [{ key: 'url', label: 'Base URL', text: 'https://x\u001b]0;T\u0007\n\u202e' }];

describe('renderDetails', () => {
  it.each([
    ['table', 'aligned "Label: value" lines', fields, 'Profile: prod (active)\nNote:    says "hi", twice\n'],
    ['json', 'json and ndjson print the object itself, int64 exact', fields, '{\n  "profile": "prod",\n  "note": "says \\"hi\\", twice",\n  "count": 9007199254740993\n}\n'],
    ['ndjson', 'json and ndjson print the object itself, int64 exact', fields, '{"profile":"prod","note":"says \\"hi\\", twice","count":9007199254740993}\n'],
    ['csv', 'keys as header, one RFC 4180-quoted row', fields, 'profile,note\nprod (active),"says ""hi"", twice"\n'],
    ['table', 'a "Label: value" line shows control and bidi characters as escapes', url, 'Base URL: https://x\\x1b]0;T\\x07\\n\\u202e\n'],
  ] as const)('%s: %s', (format, _title, rows, expected) => {
    expect(renderDetails(rows, object, format)).toBe(expected);
  });
});
