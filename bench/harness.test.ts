import { expect, test } from 'bun:test';
import { formatValue, unitOfKey } from './harness.ts';

test("a figure's unit comes from its name in a bench's own JSON, or its parent's; anything else is a count", () => {
  expect(unitOfKey('results.catalog.builderUs')).toBe('µs');
  expect(unitOfKey('results.koreanSearchMedianMs')).toBe('ms');
  expect(unitOfKey('dueToAppendedMs.median')).toBe('ms');
  expect(unitOfKey('results.insertPerSecond')).toBe('ops/s');
  expect(unitOfKey('idle.rssMb')).toBe('MB');
  expect(unitOfKey('results.ratio')).toBe('×');
  expect(unitOfKey('callNs')).toBe('ns');
  // Names that merely contain the letters of a unit are counts.
  expect(unitOfKey('results.entries')).toBe('');
  expect(unitOfKey('results.insertions')).toBe('');
  expect(unitOfKey('pendingSchedules')).toBe('');
  expect(formatValue(2000, '')).toBe('2000');
  expect(formatValue(1.5, 'ms')).toBe('1.50 ms');
});
