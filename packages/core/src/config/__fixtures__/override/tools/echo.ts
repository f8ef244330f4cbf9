export const handlers = { say: () => 'user echo' };
