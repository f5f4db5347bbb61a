import { describe, expect, it } from 'vitest';
import { renderDetails } from '../../src/output/details';

const fields = [
  { key: 'profile', label: 'Profile', text: 'prod (active)' },
  { key: 'note', label: 'Note', text: 'says "hi", twice' },
];
const object = { profile: 'prod', note: 'says "hi", twice', count: 9007199254740993n };

describe('renderDetails', () => {
  it('table: aligned "Label: value" lines', () => {
    expect(renderDetails(fields, object, 'table')).toBe('Profile: prod (active)\nNote:    says "hi", twice\n');
  });

  it('json and ndjson print the object itself, int64 exact', () => {
    expect(renderDetails(fields, object, 'json')).toBe('{\n  "profile": "prod",\n  "note": "says \\"hi\\", twice",\n  "count": 9007199254740993\n}\n');
    expect(renderDetails(fields, object, 'ndjson')).toBe('{"profile":"prod","note":"says \\"hi\\", twice","count":9007199254740993}\n');
  });

  it('csv: keys as header, one RFC 4180-quoted row', () => {
    expect(renderDetails(fields, object, 'csv')).toBe('profile,note\nprod (active),"says ""hi"", twice"\n');
  });
});

describe('renderDetails and outside text', () => {
  it('a "Label: value" line shows control and bidi characters as escapes', () => {
    const out = renderDetails([{ key: 'url', label: 'Base URL', text: 'https://x\u001b]0;T\u0007\n\u202e' }], {}, 'table');
    expect(out).toBe('Base URL: https://x\\x1b]0;T\\x07\\n\\u202e\n');
  });
});
