/** Native Korean counting words used before 시 and 시간 (한 시, 두 시간), with their values. */
const nativeNumbers: Record<string, number> = {
  한: 1,
  두: 2,
  세: 3,
  네: 4,
  다섯: 5,
  여섯: 6,
  일곱: 7,
  여덟: 8,
  아홉: 9,
  열: 10,
  열한: 11,
  열두: 12,
};

/** Alternation for a regex: the longer words first, so 열한 wins over 열. */
export const koreanNumberPattern = `(?:\\d{1,4}|${Object.keys(nativeNumbers)
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

/** `12` → 12, `열두` → 12; undefined for anything else. */
export function koreanNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  return nativeNumbers[text];
}
