export const handlers = {
  run: () => 'ok',
  exec: () => 'ok',
  Run: () => 'ok',
  a__b: () => 'ok',
  x: () => 'ok',
  go: () => 'ok',
  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: () => 'ok',
};
