import type { GuideBlock } from '../src/output/guide';

export const GUIDE_SOURCES: Record<string, { file: string; section?: string }>;
export function guideMarkdown(topic: string, root: URL): string;
export function inlineText(markdown: string): string;
export function guideBlocks(markdown: string): GuideBlock[];
