export const handlers = { exec: () => 'ok' };
