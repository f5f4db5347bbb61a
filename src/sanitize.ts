/**
 * Outside text (the server's bodies and headers, file contents and column
 * names, Redis replies, file names) made safe to show, as gh's sanitizer does.
 * C0 and C1 control characters, DEL and the Unicode bidi controls become a
 * visible escape: ESC is `\x1b`, CR `\r`, U+202E `\u202e`. Otherwise a server
 * could set the window title (OSC 0), write the clipboard (OSC 52), clear the
 * screen, hide a message behind a carriage return, or reverse a line (U+202E).
 *
 * Everything petctl writes to stderr, and what it writes to stdout on a
 * terminal, passes through here; piped data keeps the server's bytes.
 */

export interface SafeTextOptions {
  /** Keep tabs as they are (where the format allows them). */
  tab?: boolean;
  /** Keep newlines as they are (where the format allows them). */
  newline?: boolean;
  /** `\u001b` escapes, valid inside a JSON string, for a JSON line already made by JSON.stringify. */
  json?: boolean;
}

// C0, DEL, C1, LRM, RLM, LRE..RLO, LRI..PDI.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

function escapeOne(char: string, json: boolean): string {
  const code = char.charCodeAt(0);
  if (json) return `\\u${hex(code, 4)}`;
  return NAMED[char] ?? (code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`);
}

/** `text` with every control and bidi character as a visible escape (tabs and newlines kept when asked). */
export function safeText(text: string, options: SafeTextOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (char) => {
    if ((char === '\t' && options.tab) || (char === '\n' && options.newline)) return char;
    return escapeOne(char, options.json === true);
  });
}

/** One line of a message on stderr: a newline inside it would forge a line of its own; a tab is harmless. */
export function safeLine(text: string): string {
  return safeText(text, { tab: true });
}

/** Lines for stderr, each made safe, the line breaks between them kept. */
export function safeLines(text: string): string {
  return safeText(text, { tab: true, newline: true });
}

/**
 * JSON text (stringifyJson's) for stdout. On a terminal its C1 and bidi controls become `\u009b`,
 * `\u202e` escapes (JSON itself already escapes C0): still valid JSON, with the same value, but
 * nothing a terminal acts on. Piped, the text as it is.
 */
export function stdoutJson(json: string, tty: boolean): string {
  return tty ? safeText(json, { json: true, tab: true, newline: true }) : json;
}
