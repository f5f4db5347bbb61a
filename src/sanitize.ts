/** Outside text made safe to show, as gh's sanitizer does: controls and bidi characters become escapes, or a server
 * could set the window title, write the clipboard, hide a message behind a CR or reverse a line. Everything on stderr,
 * and stdout on a terminal, passes here; piped data keeps the bytes. */

// C0, DEL, C1, LRM, RLM, LRE..RLO, LRI..PDI.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Tabs and newlines kept when asked; `json`: `\u001b` escapes, valid inside a string JSON.stringify made. */
export function safeText(text: string, options: { tab?: boolean; newline?: boolean; json?: boolean } = {}): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (char) => {
    if ((char === '\t' && options.tab) || (char === '\n' && options.newline)) return char;
    const code = char.charCodeAt(0);
    if (options.json || (NAMED[char] === undefined && code > 0xff)) return `\\u${code.toString(16).padStart(4, '0')}`;
    return NAMED[char] ?? `\\x${code.toString(16).padStart(2, '0')}`;
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

/** JSON for stdout: on a terminal C1 and bidi controls as `\u009b` escapes, the same JSON value; piped, as it is. */
export function stdoutJson(json: string, tty: boolean): string {
  return tty ? safeText(json, { json: true, tab: true, newline: true }) : json;
}
