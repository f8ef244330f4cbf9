export const handlers = { run: () => 'ok', walk: 'not a function' };
