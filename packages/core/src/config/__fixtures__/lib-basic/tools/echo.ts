export const handlers = { say: () => 'library echo' };
