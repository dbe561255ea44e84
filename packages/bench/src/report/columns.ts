// Aligned text columns, shared by the summary and the detailed tables (a module of its own so that the
// summary, which the detailed report starts with, does not import the detailed report back).

/** Lays out rows as aligned columns (the first `leftColumns` left-aligned, the rest right-aligned). */
export function textTable(header: string[], rows: string[][], leftColumns = 1): string {
  return groupedTable(header, [{ rows }], leftColumns);
}

/**
 * Like textTable, with rows in groups, each under a title line of its own (the columns aligned across all
 * groups): narrower than repeating the group's label on every row.
 */
export function groupedTable(header: string[], groups: Array<{ title?: string; rows: string[][] }>, leftColumns = 1): string {
  const rows = groups.flatMap((g) => g.rows);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const group of groups) out.push(...(group.title === undefined ? [] : [group.title]), ...group.rows.map(line));
  return out.join('\n');
}
