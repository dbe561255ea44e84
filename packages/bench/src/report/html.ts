import type { BenchResult } from '../results.js';
import { renderText } from './table.js';

/** Placeholder until the chart report lands: the text report in a page. */
export function renderHtml(result: BenchResult): string {
  return `<!doctype html><meta charset="utf-8"><title>mcp-msgpack-bench</title><pre>${escapeHtml(renderText(result))}</pre>\n`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
