/**
 * Rows as aligned text columns, two spaces apart, measured in terminal columns (Bun.stringWidth): Korean, Chinese
 * and emoji take two columns, colour codes none, so coloured and wide cells line up. The last column is not padded.
 */
export function formatTable(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, Bun.stringWidth(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, column) =>
        column === row.length - 1 ? cell : cell + ' '.repeat((widths[column] ?? 0) - Bun.stringWidth(cell)),
      )
      .join('  ')
      .trimEnd(),
  );
}
