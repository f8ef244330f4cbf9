import { expect, test } from 'bun:test';
import { toolAnnotations } from './tool-annotations.ts';

test('categories map to read-only and destructive hints; known base tools add theirs', () => {
  expect(toolAnnotations('calc__add', 'safe')).toEqual({ readOnlyHint: true });
  expect(toolAnnotations('calc__add', 'sensitive')).toEqual({ readOnlyHint: false, destructiveHint: false });
  expect(toolAnnotations('calc__add', 'restricted')).toEqual({ readOnlyHint: false, destructiveHint: true });
  expect(toolAnnotations('file-system__delete', 'sensitive')).toEqual({ readOnlyHint: false, destructiveHint: true });
  expect(toolAnnotations('http-fetch__get', 'safe')).toEqual({ readOnlyHint: true, openWorldHint: true });
  expect(toolAnnotations('bash__exec', 'restricted')).toEqual({
    readOnlyHint: false,
    destructiveHint: true,
    openWorldHint: true,
  });
});
