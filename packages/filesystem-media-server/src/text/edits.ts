import { createTwoFilesPatch } from 'diff';

export interface TextEdit {
  oldText: string;
  newText: string;
}

const normalizeLineEndings = (text: string): string => text.replace(/\r\n/g, '\n');

/**
 * Applies edits in order, with the official server's matching rules: an exact match of oldText first
 * (first occurrence); failing that, a run of lines equal after trimming, replaced with newText re-indented
 * to the matched block's first line. Throws when an edit matches nowhere.
 */
export function applyEdits(original: string, edits: readonly TextEdit[]): string {
  let content = normalizeLineEndings(original);
  for (const edit of edits) {
    const oldText = normalizeLineEndings(edit.oldText);
    const newText = normalizeLineEndings(edit.newText);
    if (content.includes(oldText)) {
      content = content.replace(oldText, () => newText);
      continue;
    }
    const replaced = replaceTrimmedLines(content, oldText, newText);
    if (replaced === undefined) throw new Error(`Could not find exact match for edit:\n${edit.oldText}`);
    content = replaced;
  }
  return content;
}

function replaceTrimmedLines(content: string, oldText: string, newText: string): string | undefined {
  const oldLines = oldText.split('\n');
  const lines = content.split('\n');
  for (let start = 0; start + oldLines.length <= lines.length; start++) {
    if (!oldLines.every((line, j) => line.trim() === lines[start + j]!.trim())) continue;
    const baseIndent = leadingSpace(lines[start]!);
    const replacement = newText.split('\n').map((line, j) => {
      if (j === 0) return baseIndent + line.trimStart();
      const oldIndent = leadingSpace(oldLines[j] ?? '');
      const newIndent = leadingSpace(line);
      if (!oldIndent || !newIndent) return line;
      return baseIndent + ' '.repeat(Math.max(0, newIndent.length - oldIndent.length)) + line.trimStart();
    });
    lines.splice(start, oldLines.length, ...replacement);
    return lines.join('\n');
  }
  return undefined;
}

function leadingSpace(line: string): string {
  return /^\s*/.exec(line)?.[0] ?? '';
}

/** A unified diff in a fenced ```diff block, the fence longer than any backtick run inside. */
export function fencedDiff(before: string, after: string, filePath: string): string {
  const diff = createTwoFilesPatch(filePath, filePath, normalizeLineEndings(before), normalizeLineEndings(after), 'original', 'modified');
  let fence = '```';
  while (diff.includes(fence)) fence += '`';
  return `${fence}diff\n${diff}${fence}\n\n`;
}
