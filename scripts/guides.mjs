// The guides `petctl help <topic>` prints, made at build time from the Markdown
// pages the repository shows (docs/ and the README), so the two cannot drift
// apart. Each page becomes a list of blocks (headings, paragraphs, list items,
// code, tables) with Markdown's inline syntax resolved; src/output/guide.ts lays
// them out to the terminal's width at run time.
import { readFileSync } from 'node:fs';

/** Each topic's source: a page of docs/, or one section of the README. */
export const GUIDE_SOURCES = {
  'bulk-import': { file: 'docs/bulk-import.md' },
  'rate-limits': { file: 'docs/rate-limits.md' },
  configuration: { file: 'docs/configuration.md' },
  output: { file: 'docs/output.md' },
  sandbox: { file: 'docs/sandbox.md' },
  'shared-state': { file: 'docs/shared-state.md' },
  'exit-codes': { file: 'README.md', section: '## Exit codes' },
};

/** The Markdown a topic is made from. */
export function guideMarkdown(topic, root) {
  const { file, section } = GUIDE_SOURCES[topic];
  const text = readFileSync(new URL(file, root), 'utf8');
  if (section === undefined) return text;
  const start = text.indexOf(`\n${section}\n`);
  if (start < 0) throw new Error(`${file} has no section ${section}`);
  const rest = text.slice(start + 1);
  const end = rest.indexOf('\n## ', section.length);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/**
 * A link on a terminal: to a page that is a guide, the command that prints it;
 * to the web, the text and the address; anywhere else (a page the package does
 * not ship, an anchor), the text alone.
 */
function linkText(text, target) {
  const page = /^(?:docs\/)?([\w-]+)\.md(?:#.*)?$/.exec(target)?.[1];
  if (page !== undefined && page in GUIDE_SOURCES && GUIDE_SOURCES[page].section === undefined) {
    return text === `docs/${page}.md` || text === `${page}.md` ? `petctl help ${page}` : `${text} (petctl help ${page})`;
  }
  if (/^https?:/.test(target)) return text === target ? target : `${text} (${target})`;
  return text;
}

/** Markdown's inline syntax resolved to plain text. */
export function inlineText(markdown) {
  // Code spans are set aside first: stars in them (a masked key, `****-pro`) are text, not emphasis.
  const spans = [];
  return markdown
    .replace(/`+([^`]+?)`+/g, (_match, code) => `\0${spans.push(code) - 1}\0`)
    .replace(/\[([^\][]*)\]\(([^)\s]+)\)/g, (_match, text, target) => linkText(text, target))
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s.,;:)]|$)/g, '$1$2')
    .replace(/\0(\d+)\0/g, (_match, index) => spans[Number(index)])
    .replace(/\\([|`*_\\[\]])/g, '$1');
}

function tableCells(line) {
  const cells = [];
  let cell = '';
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '\\' && inner[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (inner[i] === '|') {
      cells.push(cell);
      cell = '';
    } else cell += inner[i];
  }
  cells.push(cell);
  return cells.map((text) => inlineText(text.trim()));
}

/** Markdown -> blocks: { heading, level } | { paragraph } | { item, marker, depth } | { code } | { table }. */
export function guideBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ paragraph: inlineText(paragraph.join(' ')) });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence[1]); i++) code.push(lines[i]);
      blocks.push({ code: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ heading: inlineText(heading[2]), level: heading[1].length });
      continue;
    }
    if (/^\s*\|/.test(line)) {
      flush();
      const rows = [];
      for (; i < lines.length && /^\s*\|/.test(lines[i]); i++) {
        if (!/^\s*\|[\s|:-]+\|?\s*$/.test(lines[i])) rows.push(tableCells(lines[i]));
      }
      i--;
      blocks.push({ table: rows });
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const text = [item[3]];
      // The item's continuation lines: indented, and not a new item or block.
      while (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]) && !/^\s*([-*+]|\d+[.)])\s/.test(lines[i + 1]) && !/^\s*(```|~~~|\|)/.test(lines[i + 1])) {
        text.push(lines[++i].trim());
      }
      blocks.push({ item: inlineText(text.join(' ')), marker: /\d/.test(item[2]) ? item[2] : '-', depth: Math.floor(item[1].length / 2) });
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line.trim());
  }
  flush();
  return blocks;
}
