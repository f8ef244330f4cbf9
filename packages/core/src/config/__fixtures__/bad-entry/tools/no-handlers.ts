export const handler = { run: () => 'ok' };
